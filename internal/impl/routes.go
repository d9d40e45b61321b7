package impl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// RouteProblem is one thing a route check found wrong. Finding names the seed flaw it is, when it
// is one of Findings, so that a variant expecting it can show "seed flaw reproduced".
type RouteProblem struct {
	Msg     string
	Finding string
}

// String returns the message, with the finding's id in front when there is one.
func (p RouteProblem) String() string {
	if p.Finding != "" {
		return p.Finding + ": " + p.Msg
	}
	return p.Msg
}

// CheckRoutes requests every route of an HTTP workload from a started impl listening on addr
// and checks the answers against DESIGN §5.3: status 200, `Hello world!` for GET /, a counter
// and a newline for /cache/{driver}, an empty body for /queue/{driver}, a JSON body for /sync,
// /async and /async-overlap; and an unknown route must answer 404. GET / is also read off the
// wire twice on one connection, so that a body longer or shorter than its Content-Length
// (content-length-mismatch) and a connection closed after each response (no-keepalive) show.
// It returns every problem.
func CheckRoutes(ctx context.Context, addr string, routes []string) []RouteProblem {
	var problems []RouteProblem
	for _, r := range routes {
		if r == "/" {
			problems = append(problems, checkFraming(ctx, addr, r)...)
		}
		if msg := checkRoute(ctx, addr, r); msg != "" {
			problems = append(problems, RouteProblem{Msg: msg})
		}
	}
	if code, _, err := get(ctx, addr, "/iobench-no-such-route"); err == nil && code != http.StatusNotFound {
		problems = append(problems, RouteProblem{Msg: fmt.Sprintf("GET /iobench-no-such-route: status %d, want 404", code)})
	}
	return problems
}

// client asks each request on a new connection, so that one response framed wrong cannot spoil
// the next check (checkFraming looks at framing on its own).
var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

func get(ctx context.Context, addr, path string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), err
}

// checkRoute returns what is wrong with one route's answer, or "".
func checkRoute(ctx context.Context, addr, r string) string {
	code, body, err := get(ctx, addr, r)
	switch {
	case err != nil:
		return fmt.Sprintf("GET %s: %v", r, err)
	case code != http.StatusOK:
		return fmt.Sprintf("GET %s: status %d, want 200", r, code)
	case r == "/" && body != "Hello world!":
		return fmt.Sprintf("GET /: body %q, want %q", trim(body), "Hello world!")
	case strings.HasPrefix(r, "/cache/") && (!strings.HasSuffix(body, "\n") || strings.TrimSpace(body) == ""):
		return fmt.Sprintf("GET %s: body %q, want the counter's value and a newline", r, trim(body))
	case strings.HasPrefix(r, "/queue/") && body != "":
		return fmt.Sprintf("GET %s: body %q, want an empty body", r, trim(body))
	case r == "/sync" || r == "/async" || r == "/async-overlap":
		if t := strings.TrimSpace(body); !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
			return fmt.Sprintf("GET %s: body %q, want the upstream's JSON", r, trim(body))
		}
	}
	return ""
}

// framingTimeout bounds each read of checkFraming; extraWait is how long it waits for bytes
// beyond a response's declared body (a server writes a response in one go).
const (
	framingTimeout = 5 * time.Second
	extraWait      = 150 * time.Millisecond
)

// checkFraming sends GET path twice on one HTTP/1.1 connection and reads each response exactly
// as its headers frame it.
func checkFraming(ctx context.Context, addr, path string) []RouteProblem {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return []RouteProblem{{Msg: fmt.Sprintf("GET %s: %v", path, err)}}
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 2 {
		p, ok := exchange(conn, br, addr, path, i > 0)
		if p != nil {
			return []RouteProblem{*p}
		}
		if !ok {
			break
		}
	}
	return nil
}

// exchange sends one request and reads its response. It returns a problem, or whether the
// connection may carry another request.
func exchange(conn net.Conn, br *bufio.Reader, addr, path string, again bool) (*RouteProblem, bool) {
	closed := func() *RouteProblem {
		return &RouteProblem{Finding: "no-keepalive", Msg: fmt.Sprintf("GET %s: the server closed the connection after one response; HTTP/1.1 keeps it open", path)}
	}
	_ = conn.SetDeadline(time.Now().Add(framingTimeout))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		if again {
			return closed(), false
		}
		return &RouteProblem{Msg: fmt.Sprintf("GET %s: %v", path, err)}, false
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		if again && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			return closed(), false
		}
		return &RouteProblem{Msg: fmt.Sprintf("GET %s: not a valid HTTP response: %v", path, err)}, false
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil && resp.ContentLength > 0 {
		return &RouteProblem{Finding: "content-length-mismatch", Msg: fmt.Sprintf(
			"GET %s: Content-Length is %d but the body ended after %d bytes (%v)", path, resp.ContentLength, n, err)}, false
	}
	if extra := extraBytes(conn, br); extra != "" {
		return &RouteProblem{Finding: "content-length-mismatch", Msg: fmt.Sprintf(
			"GET %s: Content-Length is %d but %q followed the body", path, resp.ContentLength, trim(extra))}, false
	}
	if resp.Close {
		return closed(), false
	}
	return nil, true
}

// extraBytes returns what the server sent beyond the response just read, waiting extraWait.
func extraBytes(conn net.Conn, br *bufio.Reader) string {
	_ = conn.SetReadDeadline(time.Now().Add(extraWait))
	if _, err := br.Peek(1); err != nil {
		return ""
	}
	b, _ := br.Peek(br.Buffered())
	return string(b)
}

func trim(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
