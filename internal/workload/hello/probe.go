package hello

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/impl"
)

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
