package h2wiretest

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/iobench/iobench/internal/h2wire"
)

// leanAnswer is a response's frames, canned: HEADERS (:status 200 from the static table, a
// content-length never indexed) and DATA "Hello world!", both with the stream id to fill in.
var leanAnswer = func() []byte {
	block := []byte{0x88, 0x1f, 0x0d, 2, '1', '2'} // :status 200; content-length (static name 28), never indexed
	b := h2wire.AppendHeader(nil, h2wire.Header{Length: uint32(len(block)), Type: h2wire.TypeHeaders, Flags: h2wire.FlagEndHeaders})
	b = append(b, block...)
	b = h2wire.AppendHeader(b, h2wire.Header{Length: 12, Type: h2wire.TypeData, Flags: h2wire.FlagEndStream})
	return append(b, "Hello world!"...)
}()

// StartLean serves h2c on 127.0.0.1 until the test ends, answering every request "Hello world!"
// with canned frames from buffers made once per connection, so that a test counting allocations
// counts the client's. It follows no script and checks nothing; it grants the client's request
// bodies no window.
func StartLean(tb testing.TB) string {
	tb.Helper()
	return listen(tb, nil, leanServe)
}

// listen serves each connection to 127.0.0.1 with handle, one goroutine each, until the test
// ends: then the listener and every connection are closed and the goroutines waited for. It
// returns the URL, "http://host:port/", or "https://host:port/" when cfg is set: each connection
// is then TLS with cfg, its handshake run by handle's first read.
func listen(tb testing.TB, cfg *tls.Config, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	scheme := "http"
	if cfg != nil {
		ln, scheme = tls.NewListener(ln, cfg), "https"
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	go func() { <-ctx.Done(); ln.Close() }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				stop := context.AfterFunc(ctx, func() { c.Close() })
				defer stop()
				handle(c)
			}()
		}
	}()
	tb.Cleanup(func() { cancel(); wg.Wait() })
	return scheme + "://" + ln.Addr().String() + "/"
}

func leanServe(c net.Conn) {
	defer c.Close()
	in := make([]byte, 64<<10)
	out := make([]byte, 0, 64<<10)
	if _, err := io.ReadFull(c, in[:len(h2wire.Preface)]); err != nil {
		return
	}
	if _, err := c.Write(h2wire.AppendSettings(nil, false)); err != nil {
		return
	}
	r, w := 0, 0
	for {
		n, err := c.Read(in[w:])
		if err != nil {
			return
		}
		w += n
		out = out[:0]
		for w-r >= h2wire.HeaderLen {
			h := h2wire.ParseHeader(in[r:])
			end := r + h2wire.HeaderLen + int(h.Length)
			if end > w {
				break
			}
			switch {
			case h.Type == h2wire.TypeSettings && h.Flags&h2wire.FlagAck == 0:
				out = h2wire.AppendSettings(out, true)
			case h.Type == h2wire.TypeHeaders && h.Flags&h2wire.FlagEndStream != 0:
				at := len(out)
				out = append(out, leanAnswer...)
				h2wire.SetStream(out[at:], h.Stream)
				h2wire.SetStream(out[at+h2wire.HeaderLen+6:], h.Stream)
			}
			r = end
		}
		w = copy(in, in[r:w])
		r = 0
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
		}
	}
}
