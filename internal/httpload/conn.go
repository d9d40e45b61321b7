package httpload

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"
)

// Conn is one client connection that carries requests one at a time (keep-alive, no pipelining).
// It is not safe for concurrent use: each engine worker owns its Conns.
type Conn struct {
	nc       net.Conn // what requests go over: raw, or a TLS connection over it
	raw      net.Conn // the TCP connection
	setup    Setup
	rd       reader
	deadline time.Time // the deadline last set on nc
	keepBody bool
	body     []byte
	broken   bool // set after a failure or Close: the Conn is unusable
}

// errUnusable is returned by Do after an earlier failure or Close.
var errUnusable = errors.New("connection unusable after an earlier error or Close; redial")

// Dial connects to addr (host:port) over TCP within timeout (0 means no timeout beyond ctx).
// Every failure, a timeout included, is an *Error of Class Connect, as wrk counts it.
func Dial(ctx context.Context, addr string, timeout time.Duration) (*Conn, error) {
	return DialTLS(ctx, addr, nil, timeout)
}

// DialTLS connects to addr over TCP within timeout and, when cfg is not nil, runs a TLS handshake
// over the connection with cfg within timeout again (0 means no timeout beyond ctx). Every
// failure, a refused connection, an untrusted certificate or a handshake that timed out alike,
// is an *Error of Class Connect, as wrk counts it. Setup says what each step took.
func DialTLS(ctx context.Context, addr string, cfg *tls.Config, timeout time.Duration) (*Conn, error) {
	t0 := time.Now()
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &Error{Class: Connect, Err: err}
	}
	// Go enables TCP_NODELAY by default; Do writes each request with one write, so Nagle's
	// algorithm would never have had anything to coalesce anyway.
	t1 := time.Now()
	c := newConn(nc)
	c.setup.Connect = t1.Sub(t0)
	if cfg == nil {
		return c, nil
	}
	if err := c.handshake(ctx, cfg, timeout); err != nil {
		nc.Close()
		return nil, &Error{Class: Connect, Err: err}
	}
	c.setup.Handshake = time.Since(t1)
	return c, nil
}

// newConn returns a Conn over nc, which reads and writes with raw system calls (rawIO).
func newConn(nc net.Conn) *Conn {
	raw := rawIO(nc)
	return &Conn{nc: raw, raw: raw, rd: newReader(raw, initialBufSize)}
}

// Do writes req (built once by RequestSpec.Build) and reads exactly one full response, all before
// deadline (the zero time means none). In steady state it allocates nothing: the response is
// parsed in place in a buffer the Conn owns, and bytes the server sent after the response are kept
// for the next one. A request starting with "HEAD " expects no body.
//
// Errors are *Error: Write or Read for the phase that failed, Timeout once the deadline passed,
// Length when bytes that do not begin a response followed it (its body was longer than it
// said); bytes that do begin one are kept for the next Do.
// After an error the Conn is unusable; close it and redial. The Response returned with an error
// still counts in Read the bytes consumed.
func (c *Conn) Do(req []byte, deadline time.Time) (Response, error) {
	if c.broken {
		return Response{}, &Error{Class: Write, Err: errUnusable}
	}
	// One SetDeadline per Do at most, and none when the deadline is the one already set (a run
	// without timeouts never pays for it).
	if !deadline.Equal(c.deadline) {
		if err := c.nc.SetDeadline(deadline); err != nil {
			return Response{}, c.fail(&Error{Class: Write, Err: err})
		}
		c.deadline = deadline
	}
	if _, err := c.nc.Write(req); err != nil {
		return Response{}, c.fail(ioError(Write, err))
	}
	head := Head(req)
	resp, err := c.rd.readResponse(head, c.keepBody, &c.body)
	if err != nil {
		return resp, c.fail(err)
	}
	if err := c.rd.Leftover(); err != nil {
		return resp, c.fail(err)
	}
	return resp, nil
}

func (c *Conn) fail(err error) error {
	c.broken = true
	return err
}

// SetKeepBody makes Do keep each response's body in Response.Body, for checking it. The buffer
// grows to the largest body seen and is reused; bodies over 64 MiB are a Read error while keeping.
func (c *Conn) SetKeepBody(keep bool) { c.keepBody = keep }

// CaptureHeader makes Do keep the value of the header called name (any case) in
// Response.Header, e.g. "Server-Timing". Only a Conn asked to capture looks for it: the others
// pay one comparison per header line. The value's buffer is allocated once and reused.
func (c *Conn) CaptureHeader(name string) { c.rd.CaptureHeader(name) }

// NetConn returns the connection requests go over (the TLS one over TCP for https), for a caller
// that speaks another protocol on it: the event loop's HTTP/2 over TLS copies its frames through
// it. Do must not be called once it is used.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Close closes the connection. Do fails afterwards.
func (c *Conn) Close() error {
	c.broken = true
	return c.nc.Close()
}
