package impl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
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
// and checks the answers against the routes contract (docs/IMPLS.md, "The HTTP routes"): status 200, `Hello world!` for GET / with
// Content-Type text/plain; charset=utf-8 and Content-Length 12, a counter and a newline for
// /cache/{driver}, an empty body for /queue/{driver}, a JSON body for /sync, /async and
// /async-overlap; and an unknown route must answer 404. GET / is also read off the wire twice on
// one connection, so that a body longer or shorter than its Content-Length
// (content-length-mismatch) and a connection closed after each response (no-keepalive) show,
// and asked on ConnLimitProbe connections at once, so that a per-client connection limit
// (connection-limit) shows. It returns every problem.
func CheckRoutes(ctx context.Context, addr string, routes []string) []RouteProblem {
	var problems []RouteProblem
	for _, r := range routes {
		if r == "/" {
			problems = append(problems, checkFraming(ctx, addr, r)...)
		}
		for _, msg := range checkRoute(ctx, addr, r) {
			problems = append(problems, RouteProblem{Msg: msg})
		}
		if r == "/" {
			problems = append(problems, checkConnLimit(ctx, addr, r, ConnLimitProbe)...)
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
	resp, body, err := getResponse(ctx, addr, path)
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, body, nil
}

// getResponse asks GET path on a new connection and returns the response (its body read and
// closed) and the body.
func getResponse(ctx context.Context, addr, path string) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, string(b), err
}

// helloBody, helloType are what GET / answers (docs/IMPLS.md, "The HTTP routes"): the body and its Content-Type.
const (
	helloBody = "Hello world!"
	helloType = "text/plain; charset=utf-8"
)

// checkRoute returns what is wrong with one route's answer: status and body, and for GET / the
// Content-Type and Content-Length headers.
func checkRoute(ctx context.Context, addr, r string) []string {
	resp, body, err := getResponse(ctx, addr, r)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("GET %s: %v", r, err)}
	case resp.StatusCode != http.StatusOK:
		return []string{fmt.Sprintf("GET %s: status %d, want 200", r, resp.StatusCode)}
	case r == "/":
		var out []string
		if body != helloBody {
			out = append(out, fmt.Sprintf("GET /: body %q, want %q", trim(body), helloBody))
		}
		return append(out, checkHelloHeaders(resp.Header, resp.ContentLength)...)
	case strings.HasPrefix(r, "/cache/") && (!strings.HasSuffix(body, "\n") || strings.TrimSpace(body) == ""):
		return []string{fmt.Sprintf("GET %s: body %q, want the counter's value and a newline", r, trim(body))}
	case strings.HasPrefix(r, "/queue/") && body != "":
		return []string{fmt.Sprintf("GET %s: body %q, want an empty body", r, trim(body))}
	case r == "/sync" || r == "/async" || r == "/async-overlap":
		if t := strings.TrimSpace(body); !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
			return []string{fmt.Sprintf("GET %s: body %q, want the upstream's JSON", r, trim(body))}
		}
	}
	return nil
}

// checkHelloHeaders returns what is wrong with the headers of GET /'s answer: Content-Type must
// be text/plain with charset utf-8 (any case and spacing), and the body must be framed by
// Content-Length: 12, not chunked or by the end of the connection (length is the declared
// Content-Length, -1 when there is none).
func checkHelloHeaders(h http.Header, length int64) []string {
	var out []string
	ct := h.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "text/plain" || !strings.EqualFold(params["charset"], "utf-8") {
		out = append(out, fmt.Sprintf("GET /: Content-Type %q, want %q", ct, helloType))
	}
	if want := int64(len(helloBody)); length != want {
		got := "none (chunked or delimited by the end of the connection)"
		if length >= 0 {
			got = strconv.FormatInt(length, 10)
		}
		out = append(out, fmt.Sprintf("GET /: Content-Length %s, want %d", got, want))
	}
	return out
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
		problems, ok := exchange(conn, br, addr, path, i > 0)
		if len(problems) > 0 || !ok {
			return problems
		}
	}
	return nil
}

// exchange sends one request and reads its response. It returns its problems, or whether the
// connection may carry another request. A body longer than its Content-Length ends the check
// (what follows cannot be framed), so whether the server then closes the connection is told
// there too: seed 4's ReactPHP has both flaws, and each must show.
func exchange(conn net.Conn, br *bufio.Reader, addr, path string, again bool) ([]RouteProblem, bool) {
	closed := RouteProblem{Finding: "no-keepalive", Msg: fmt.Sprintf("GET %s: the server closed the connection after one response; HTTP/1.1 keeps it open", path)}
	_ = conn.SetDeadline(time.Now().Add(framingTimeout))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		if again {
			return []RouteProblem{closed}, false
		}
		return []RouteProblem{{Msg: fmt.Sprintf("GET %s: %v", path, err)}}, false
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		if again && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			return []RouteProblem{closed}, false
		}
		return []RouteProblem{{Msg: fmt.Sprintf("GET %s: not a valid HTTP response: %v", path, err)}}, false
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil && resp.ContentLength > 0 {
		return []RouteProblem{{Finding: "content-length-mismatch", Msg: fmt.Sprintf(
			"GET %s: Content-Length is %d but the body ended after %d bytes (%v)", path, resp.ContentLength, n, err)}}, false
	}
	if extra := extraBytes(conn, br); extra != "" {
		problems := []RouteProblem{{Finding: "content-length-mismatch", Msg: fmt.Sprintf(
			"GET %s: Content-Length is %d but %q followed the body", path, resp.ContentLength, trim(extra))}}
		if resp.Close || closesAfter(conn, br) {
			problems = append(problems, closed)
		}
		return problems, false
	}
	if resp.Close {
		return []RouteProblem{closed}, false
	}
	return nil, true
}

// closesAfter discards what is buffered and says whether the server then ends the connection
// within extraWait.
func closesAfter(conn net.Conn, br *bufio.Reader) bool {
	_, _ = br.Discard(br.Buffered())
	_ = conn.SetReadDeadline(time.Now().Add(extraWait))
	_, err := br.ReadByte()
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
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
