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
	"sync"
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

// ConnLimitProbe is how many connections verify holds open at once to see a per-client
// connection limit: the seed's `wrk -c100`.
const ConnLimitProbe = 100

// connLimitTimeout bounds the whole probe: dialling, and every answer.
const connLimitTimeout = 15 * time.Second

// ConnCount is what a server did with connections held open at once (ProbeConnections).
type ConnCount struct {
	Opened     int   // connections asked for
	Answered   int   // answered GET path
	TurnedAway int   // refused, or closed or reset before any response
	Failed     int   // any other failure: a timeout, a response cut short or malformed
	First      error // the first of the other failures
}

// ProbeConnections opens n connections to addr and holds them all open, then asks GET path on
// each and reads the answer; a connection stays open after it unless the response says it
// closes. It counts the connections answered, turned away and failed otherwise.
func ProbeConnections(ctx context.Context, addr, path string, n int) ConnCount {
	ctx, cancel := context.WithTimeout(ctx, connLimitTimeout)
	defer cancel()
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	var d net.Dialer
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = d.DialContext(ctx, "tcp", addr) })
	}
	wg.Wait() // every connection is open before the first request: the limit counts open ones
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	deadline, _ := ctx.Deadline()
	for i, c := range conns {
		if c == nil {
			continue
		}
		wg.Go(func() { errs[i] = askOnce(c, addr, path, deadline) })
	}
	wg.Wait()
	out := ConnCount{Opened: n}
	for _, err := range errs {
		switch {
		case err == nil:
			out.Answered++
		case turnedAwayErr(err):
			out.TurnedAway++
		default:
			out.Failed++
			if out.First == nil {
				out.First = err
			}
		}
	}
	return out
}

// checkConnLimit probes n connections held open at once (ProbeConnections): some turned away
// means a per-client connection limit (connection-limit, seed 4's Aerys with connectionsPerIP
// 30). Other failures are an ordinary problem.
func checkConnLimit(ctx context.Context, addr, path string, n int) []impl.RouteProblem {
	c := ProbeConnections(ctx, addr, path, n)
	var out []impl.RouteProblem
	if c.TurnedAway > 0 {
		out = append(out, impl.RouteProblem{Finding: "connection-limit", Msg: fmt.Sprintf(
			"GET %s on %d connections open at once: %d were refused or closed without a response (a per-client connection limit)", path, n, c.TurnedAway)})
	}
	if c.Failed > 0 {
		out = append(out, impl.RouteProblem{Msg: fmt.Sprintf("GET %s on %d connections open at once: %d failed, the first with: %v", path, n, c.Failed, c.First)})
	}
	return out
}

// errNoResponse is askOnce's error for a connection that ended before any byte of a response.
var errNoResponse = errors.New("the server closed the connection before any response")

// askOnce sends GET path on c and reads one response with its body.
func askOnce(c net.Conn, addr, path string, deadline time.Time) error {
	_ = c.SetDeadline(deadline)
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		return err
	}
	br := bufio.NewReader(c)
	if _, err := br.Peek(1); err != nil {
		if errors.Is(err, io.EOF) {
			return errNoResponse
		}
		return err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fmt.Errorf("not a valid HTTP response: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		// The server ends the connection, and may wait for us to end it too (gunicorn lingers
		// about 2 s per connection otherwise, one connection at a time).
		c.Close()
	}
	return err
}

// turnedAwayErr says whether err means the server refused the connection or dropped it before
// answering.
func turnedAwayErr(err error) bool {
	return errors.Is(err, errNoResponse) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// checkProtocol is verify's check of a started variant of m beyond its routes over HTTP/1.1:
// GET / over h2c for a variant that declares it (ProtocolOf), nothing for the others.
func checkProtocol(m *impl.Manifest) web.MoreCheck {
	return func(ctx context.Context, addr string, v impl.Variant) (string, []impl.RouteProblem) {
		if ProtocolOf(m, v.Name) != ProtocolH2C {
			return "", nil
		}
		var problems []impl.RouteProblem
		for _, msg := range checkH2C(ctx, addr) {
			problems = append(problems, impl.RouteProblem{Msg: "GET / over h2c: " + msg})
		}
		return "GET / over h2c", problems
	}
}

// checkH2C asks GET / of addr over HTTP/2 with prior knowledge and returns what is wrong with the
// answer: not HTTP/2, a status other than 200, a body other than Body.
func checkH2C(ctx context.Context, addr string) []string {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		return []string{err.Error()}
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return []string{fmt.Sprintf("%v (does the variant speak h2c with prior knowledge?)", err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var out []string
	switch {
	case err != nil:
		out = append(out, fmt.Sprintf("reading the body: %v", err))
	case string(body) != Body:
		out = append(out, fmt.Sprintf("body %q, want %q", body, Body))
	}
	if resp.ProtoMajor != 2 {
		out = append(out, fmt.Sprintf("answered over %s, want HTTP/2", resp.Proto))
	}
	if resp.StatusCode != http.StatusOK {
		out = append(out, fmt.Sprintf("status %d, want 200", resp.StatusCode))
	}
	return out
}
