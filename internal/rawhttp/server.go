package rawhttp

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	initialBufSize = 2 << 10
	// maxBufSize must exceed MaxHeaderBytes, so a full buffer always holds an oversized header.
	maxBufSize = 2 * MaxHeaderBytes
	// lingerTimeout bounds how long a closing connection drains what the client still sends, so
	// the response is not destroyed by a reset (see lingerClose).
	lingerTimeout = time.Second
	// dateFormat is HTTP's IMF-fixdate (RFC 9110 §5.6.7).
	dateFormat = "Mon, 02 Jan 2006 15:04:05 GMT"
)

// Serve answers HTTP/1.1 on ln with h until ctx is cancelled, then closes ln and every open
// connection, waits for their goroutines and returns nil. It returns an error only if accepting
// fails for a reason other than cancellation. See the package doc for what it answers itself.
func Serve(ctx context.Context, ln net.Listener, h Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{conns: make(map[net.Conn]struct{}), handler: h}
	s.setDate(time.Now())
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		s.closeAll()
	})
	defer stop()

	var wg sync.WaitGroup
	wg.Go(func() {
		// The Date header is formatted once a second, not once per response.
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				s.setDate(now)
			}
		}
	})
	err := s.acceptLoop(ctx, ln, &wg)
	cancel()
	ln.Close()
	s.closeAll()
	wg.Wait()
	return err
}

type server struct {
	handler Handler
	date    atomic.Pointer[[]byte] // "Date: ...\r\n"
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

func (s *server) setDate(now time.Time) {
	b := make([]byte, 0, 64)
	b = append(b, "Date: "...)
	b = now.UTC().AppendFormat(b, dateFormat)
	b = append(b, "\r\n"...)
	s.date.Store(&b)
}

func (s *server) acceptLoop(ctx context.Context, ln net.Listener, wg *sync.WaitGroup) error {
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !temporary(err) {
				return err
			}
			// Out of file descriptors or similar: wait a little, as net/http does, rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
			continue
		}
		backoff = 0
		if !s.track(c) {
			c.Close()
			return nil
		}
		wg.Go(func() {
			defer s.untrack(c)
			serveConn(c, &s.date, session{ctx: ctx, handler: s.handler})
		})
	}
}

func temporary(err error) bool {
	var ne net.Error
	return (errors.As(err, &ne) && ne.Timeout()) || errors.Is(err, syscall.EMFILE) ||
		errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

func (s *server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *server) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.Close()
}

func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for c := range s.conns {
		c.Close()
	}
}

// serveConn runs one connection: read what the client sent, answer every complete request in it
// with one write, repeat. Its two buffers are allocated once and reused.
func serveConn(c net.Conn, date *atomic.Pointer[[]byte], sess session) {
	buf := make([]byte, initialBufSize)
	out := make([]byte, 0, initialBufSize)
	r, w := 0, 0
	for {
		n, err := c.Read(buf[w:])
		w += n
		for r < w {
			k, o, closeAfter := sess.process(buf[r:w], out[:0], *date.Load())
			out = o
			r += k
			if len(out) > 0 {
				if _, werr := c.Write(out); werr != nil {
					return
				}
			}
			if closeAfter {
				lingerClose(c)
				return
			}
			if k == 0 {
				break
			}
		}
		if err != nil {
			return // EOF, reset, or closed by Serve
		}
		switch {
		case r == w:
			r, w = 0, 0
		case w < len(buf):
		case r > 0:
			w = copy(buf, buf[r:w])
			r = 0
		case len(buf) < maxBufSize:
			nb := make([]byte, min(2*len(buf), maxBufSize))
			w = copy(nb, buf[r:w])
			r, buf = 0, nb
		default:
			return // unreachable: process answers 431 to a full buffer
		}
	}
}

// lingerClose closes a connection after its last response without losing that response: closing
// a socket with unread input makes the kernel send a reset, which can destroy the response before
// the client reads it. So: send FIN, drain what the client still sends for a while, then close.
func lingerClose(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(lingerTimeout))
	io.CopyN(io.Discard, c, 256<<10)
}
