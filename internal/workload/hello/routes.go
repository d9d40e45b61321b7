package hello

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

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/workload/web"
)

// ContentType is the Content-Type of GET /'s answer (docs/IMPLS.md, "The HTTP routes").
const ContentType = "text/plain; charset=utf-8"

// checkRoute is verify's check of a hello route (web.RouteCheck). GET / is read off the wire
// twice on one connection (checkFraming), so that a body longer or shorter than its
// Content-Length (content-length-mismatch) and a connection closed after each response
// (no-keepalive) show; then asked once for its status, body and headers (checkAnswer); then on
// ConnLimitProbe connections at once, so that a per-client connection limit (connection-limit)
// shows. Any other route must answer status 200.
func checkRoute(ctx context.Context, addr, route string) []impl.RouteProblem {
	if route != "/" {
		return web.Answer(nil)(ctx, addr, route)
	}
	problems := checkFraming(ctx, addr, route)
	problems = append(problems, web.Answer(checkAnswer)(ctx, addr, route)...)
	return append(problems, checkConnLimit(ctx, addr, route, ConnLimitProbe)...)
}

// checkAnswer returns what is wrong with GET /'s answer of status 200: its body must be Body,
// and its headers right (checkHeaders).
func checkAnswer(_ string, resp *http.Response, body string) []string {
	var out []string
	if body != Body {
		out = append(out, fmt.Sprintf("GET /: body %q, want %q", web.Clip(body), Body))
	}
	return append(out, checkHeaders(resp.Header, resp.ContentLength)...)
}

// checkHeaders returns what is wrong with the headers of GET /'s answer: Content-Type must be
// text/plain with charset utf-8 (any case and spacing), and the body must be framed by
// Content-Length: 12, not chunked or by the end of the connection (length is the declared
// Content-Length, -1 when there is none).
func checkHeaders(h http.Header, length int64) []string {
	var out []string
	ct := h.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "text/plain" || !strings.EqualFold(params["charset"], "utf-8") {
		out = append(out, fmt.Sprintf("GET /: Content-Type %q, want %q", ct, ContentType))
	}
	if want := int64(len(Body)); length != want {
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
func checkFraming(ctx context.Context, addr, path string) []impl.RouteProblem {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return []impl.RouteProblem{{Msg: fmt.Sprintf("GET %s: %v", path, err)}}
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
func exchange(conn net.Conn, br *bufio.Reader, addr, path string, again bool) ([]impl.RouteProblem, bool) {
	closed := impl.RouteProblem{Finding: "no-keepalive", Msg: fmt.Sprintf("GET %s: the server closed the connection after one response; HTTP/1.1 keeps it open", path)}
	_ = conn.SetDeadline(time.Now().Add(framingTimeout))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		if again {
			return []impl.RouteProblem{closed}, false
		}
		return []impl.RouteProblem{{Msg: fmt.Sprintf("GET %s: %v", path, err)}}, false
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		if again && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			return []impl.RouteProblem{closed}, false
		}
		return []impl.RouteProblem{{Msg: fmt.Sprintf("GET %s: not a valid HTTP response: %v", path, err)}}, false
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil && resp.ContentLength > 0 {
		return []impl.RouteProblem{{Finding: "content-length-mismatch", Msg: fmt.Sprintf(
			"GET %s: Content-Length is %d but the body ended after %d bytes (%v)", path, resp.ContentLength, n, err)}}, false
	}
	if extra := extraBytes(conn, br); extra != "" {
		problems := []impl.RouteProblem{{Finding: "content-length-mismatch", Msg: fmt.Sprintf(
			"GET %s: Content-Length is %d but %q followed the body", path, resp.ContentLength, web.Clip(extra))}}
		if resp.Close || closesAfter(conn, br) {
			problems = append(problems, closed)
		}
		return problems, false
	}
	if resp.Close {
		return []impl.RouteProblem{closed}, false
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
