package httpload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer is a TCP server on 127.0.0.1 that runs handle on each connection; it counts
// connections and closes everything at test cleanup.
type rawServer struct {
	ln     net.Listener
	conns  atomic.Int64
	wg     sync.WaitGroup
	mu     sync.Mutex
	open   []net.Conn
	closed bool
}

func startRaw(tb testing.TB, handle func(c net.Conn)) *rawServer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				c.Close()
				return
			}
			s.open = append(s.open, c)
			s.wg.Add(1)
			s.mu.Unlock()
			go func() {
				defer s.wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		s.closed = true
		for _, c := range s.open {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) addr() string { return s.ln.Addr().String() }

// readRequest reads one request without a body (up to the blank line) into buf, allocation-free.
func readRequest(c net.Conn, buf []byte) (int, error) {
	n := 0
	for !bytes.HasSuffix(buf[:n], []byte("\r\n\r\n")) {
		if n == len(buf) {
			return n, errors.New("request too large for the test server")
		}
		k, err := c.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// respondAlways answers every request on the connection with resp.
func respondAlways(resp string) func(net.Conn) {
	return func(c net.Conn) {
		buf := make([]byte, 4096)
		out := []byte(resp)
		for {
			if _, err := readRequest(c, buf); err != nil {
				return
			}
			if _, err := c.Write(out); err != nil {
				return
			}
		}
	}
}

// respondOnce answers the first request with resp written by write, then closes the connection.
func respondOnce(resp string, write func(c net.Conn, b []byte)) func(net.Conn) {
	return func(c net.Conn) {
		if _, err := readRequest(c, make([]byte, 4096)); err != nil {
			return
		}
		write(c, []byte(resp))
	}
}

func writeAll(c net.Conn, b []byte) { c.Write(b) }

func writeByteByByte(c net.Conn, b []byte) {
	for i := range b {
		if _, err := c.Write(b[i : i+1]); err != nil {
			return
		}
	}
}

func dialT(t *testing.T, addr string) *Conn {
	t.Helper()
	c, err := Dial(context.Background(), addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var getReq = RequestSpec{Target: Target{Host: "127.0.0.1", RequestURI: "/"}}.Build()

func deadline() time.Time { return time.Now().Add(10 * time.Second) }

func TestDoKeepAliveHTTPTest(t *testing.T) {
	handlers := map[string]http.HandlerFunc{
		"content-length": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "Hello world!") },
		"chunked with trailers": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Count")
			io.WriteString(w, "Hello ")
			w.(http.Flusher).Flush() // forces chunked encoding
			io.WriteString(w, "world!")
			w.Header().Set("X-Count", "2")
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			var requests, conns atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				h(w, r)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			tg, err := ParseURL(srv.URL + "/hello")
			if err != nil {
				t.Fatal(err)
			}
			c := dialT(t, tg.Addr)
			c.SetKeepBody(true)
			req := RequestSpec{Target: tg}.Build()
			const n = 200
			for i := range n {
				resp, err := c.Do(req, deadline())
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if resp.Status != 200 || string(resp.Body) != "Hello world!" || resp.BodyLen != 12 || !resp.KeepAlive {
					t.Fatalf("request %d: %+v body %q", i, resp, resp.Body)
				}
			}
			srv.Close() // waits for the handlers, so the counts are final
			if requests.Load() != n || conns.Load() != 1 {
				t.Fatalf("server saw %d requests on %d connections, want %d on 1", requests.Load(), conns.Load(), n)
			}
		})
	}
}

func TestDoRaw(t *testing.T) {
	const hello = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello world!"
	tests := []struct {
		name      string
		handle    func(net.Conn)
		req       []byte
		want      Response // Read is checked only when non-zero
		wantClass Class
		wantIs    error // nil means success expected
	}{
		{name: "byte by byte", handle: respondOnce(hello, writeByteByByte), want: Response{Status: 200, BodyLen: 12, KeepAlive: true, Read: int64(len(hello))}},
		{name: "chunked byte by byte",
			handle: respondOnce("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n0\r\nX-T: y\r\n\r\n", writeByteByByte),
			want:   Response{Status: 200, BodyLen: 5, KeepAlive: true}},
		{name: "http/1.0 server", handle: respondOnce("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", writeAll), want: Response{Status: 200, BodyLen: 2}},
		{name: "close-delimited", handle: respondOnce("HTTP/1.1 200 OK\r\n\r\nbye bye", writeAll), want: Response{Status: 200, BodyLen: 7}},
		{name: "head", req: RequestSpec{Method: "HEAD", Target: Target{Host: "h"}}.Build(),
			handle: respondOnce("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", writeAll), want: Response{Status: 200, KeepAlive: true}},
		{name: "204", handle: respondOnce("HTTP/1.1 204 No Content\r\n\r\n", writeAll), want: Response{Status: 204, KeepAlive: true}},
		{name: "304", handle: respondOnce("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", writeAll), want: Response{Status: 304, KeepAlive: true}},
		{name: "closed before responding", handle: respondOnce("", writeAll), wantClass: Read, wantIs: io.EOF},
		{name: "closed mid-headers", handle: respondOnce("HTTP/1.1 200 OK\r\nContent-", writeAll), wantClass: Read, wantIs: io.ErrUnexpectedEOF},
		{name: "closed mid-body", handle: respondOnce("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello", writeAll), wantClass: Read, wantIs: io.ErrUnexpectedEOF},
		{name: "reset mid-body", handle: respondOnce("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello", func(c net.Conn, b []byte) {
			c.Write(b)
			c.(*net.TCPConn).SetLinger(0) // close sends RST
		}), wantClass: Read, wantIs: errAny},
		{name: "malformed", handle: respondOnce("HTTP/1.1 OK\r\n\r\n", writeAll), wantClass: Read, wantIs: errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, tt.handle)
			c := dialT(t, srv.addr())
			req := tt.req
			if req == nil {
				req = getReq
			}
			resp, err := c.Do(req, deadline())
			if tt.wantIs != nil {
				if err == nil {
					t.Fatalf("Do = %+v, want an error", resp)
				}
				if ClassOf(err) != tt.wantClass || (tt.wantIs != errAny && !errors.Is(err, tt.wantIs)) {
					t.Fatalf("Do error %v (class %v), want class %v and %v", err, ClassOf(err), tt.wantClass, tt.wantIs)
				}
				if _, err := c.Do(req, deadline()); err == nil || !strings.Contains(err.Error(), "unusable") {
					t.Fatalf("Do after an error = %v, want the unusable error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if tt.want.Read == 0 {
				resp.Read = 0
			}
			if resp.Status != tt.want.Status || resp.BodyLen != tt.want.BodyLen || resp.Read != tt.want.Read || resp.KeepAlive != tt.want.KeepAlive {
				t.Fatalf("Do = %+v, want %+v", resp, tt.want)
			}
		})
	}
}

// errAny marks a test case where any error of the class will do.
var errAny = errors.New("any")

func TestDoPipelinedLeftover(t *testing.T) {
	// The server answers the first request with two responses in one write; the second must be
	// the answer to the second Do, not lost with the first read's buffer.
	srv := startRaw(t, respondOnce("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"+"HTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\ntwo", writeAll))
	c := dialT(t, srv.addr())
	c.SetKeepBody(true)
	for i, want := range []string{"one", "two"} {
		resp, err := c.Do(getReq, deadline())
		if err != nil || string(resp.Body) != want || resp.Status != 200+i {
			t.Fatalf("Do %d = %+v %q, %v; want %d %q", i, resp, resp.Body, err, 200+i, want)
		}
	}
}

func TestDoTimeout(t *testing.T) {
	// The server reads the request and never answers.
	silent := func(c net.Conn) { io.Copy(io.Discard, c) }
	t.Run("read", func(t *testing.T) {
		c := dialT(t, startRaw(t, silent).addr())
		_, err := c.Do(getReq, time.Now().Add(50*time.Millisecond))
		if ClassOf(err) != Timeout || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Do error %v (class %v), want a timeout", err, ClassOf(err))
		}
	})
	t.Run("deadline already passed", func(t *testing.T) {
		c := dialT(t, startRaw(t, silent).addr())
		_, err := c.Do(getReq, time.Now().Add(-time.Second))
		if ClassOf(err) != Timeout {
			t.Fatalf("Do error %v (class %v), want a timeout", err, ClassOf(err))
		}
	})
	t.Run("mid-body", func(t *testing.T) {
		srv := startRaw(t, func(c net.Conn) {
			readRequest(c, make([]byte, 4096))
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"))
			io.Copy(io.Discard, c)
		})
		c := dialT(t, srv.addr())
		resp, err := c.Do(getReq, time.Now().Add(50*time.Millisecond))
		if ClassOf(err) != Timeout || resp.Read != 42 {
			t.Fatalf("Do = %+v, %v (class %v); want a timeout after 42 bytes", resp, err, ClassOf(err))
		}
	})
}

func TestDial(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, err = Dial(context.Background(), addr, time.Second)
		var e *Error
		if !errors.As(err, &e) || e.Class != Connect || ClassOf(err) != Connect {
			t.Fatalf("Dial to a closed port: %v, want a connect error", err)
		}
		if !strings.HasPrefix(err.Error(), "connect: ") {
			t.Errorf("Error() = %q, want the class first", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Dial(ctx, "127.0.0.1:9", time.Second)
		if ClassOf(err) != Connect || !errors.Is(err, context.Canceled) {
			t.Fatalf("Dial with a cancelled context: %v (class %v)", err, ClassOf(err))
		}
	})
}

func TestClassOf(t *testing.T) {
	tests := []struct {
		err  error
		want Class
	}{
		{&Error{Class: Write, Err: io.ErrClosedPipe}, Write},
		{fmt.Errorf("wrapped: %w", &Error{Class: Connect, Err: os.ErrDeadlineExceeded}), Connect},
		{os.ErrDeadlineExceeded, Timeout},
		{context.DeadlineExceeded, Timeout},
		{io.EOF, Read},
		{errors.New("connection reset by peer"), Read},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			if got := ClassOf(tt.err); got != tt.want {
				t.Errorf("ClassOf(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
	for c, s := range map[Class]string{Connect: "connect", Read: "read", Write: "write", Timeout: "timeout"} {
		if c.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(c), c.String(), s)
		}
	}
}

const benchResponse = "HTTP/1.1 200 OK\r\nServer: bench\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nHello world!"

const timingResponse = "HTTP/1.1 200 OK\r\nServer-Timing: app;dur=21.3\r\nContent-Length: 12\r\n\r\nHello world!"

// TestCaptureHeader checks that one named header's value is kept, its lines joined, only when
// asked, and that a response without it leaves Header empty.
func TestCaptureHeader(t *testing.T) {
	two := "HTTP/1.1 200 OK\r\nserver-timing: db;dur=2\r\nContent-Length: 2\r\nSERVER-TIMING:  app;dur=21.3 \r\n\r\nok"
	none := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	for _, tc := range []struct {
		name, resp, capture, want string
	}{
		{"joined", two, "Server-Timing", "db;dur=2, app;dur=21.3"},
		{"absent", none, "Server-Timing", ""},
		{"not asked", two, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialT(t, startRaw(t, respondAlways(tc.resp)).addr())
			if tc.capture != "" {
				c.CaptureHeader(tc.capture)
			}
			for range 2 { // the second response must not see the first one's value
				resp, err := c.Do(getReq, deadline())
				if err != nil {
					t.Fatal(err)
				}
				if string(resp.Header) != tc.want {
					t.Fatalf("Header = %q, want %q", resp.Header, tc.want)
				}
			}
		})
	}
}

// TestDoAllocs checks the promise the engine relies on: a steady Do allocates nothing, even with
// a new deadline every call and the body kept. The raw server allocates nothing per request either,
// since AllocsPerRun counts every goroutine.
func TestDoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			c := dialT(t, startRaw(t, respondAlways(timingResponse)).addr())
			c.SetKeepBody(keep)
			if keep { // a captured header costs nothing per call either
				c.CaptureHeader("Server-Timing")
			}
			var failed error
			do := func() {
				if _, err := c.Do(getReq, time.Now().Add(time.Second)); err != nil {
					failed = err
				}
			}
			do() // warm up buffers
			if n := testing.AllocsPerRun(1000, do); n != 0 {
				t.Errorf("Do allocates %v times per call, want 0", n)
			}
			if failed != nil {
				t.Fatal(failed)
			}
		})
	}
}

func BenchmarkDo(b *testing.B) {
	for _, bc := range []struct {
		name string
		resp string
	}{
		{"content-length", benchResponse},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nHello \r\n6\r\nworld!\r\n0\r\n\r\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := startRaw(b, respondAlways(bc.resp))
			c, err := Dial(context.Background(), srv.addr(), time.Second)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				resp, err := c.Do(getReq, time.Now().Add(time.Second))
				if err != nil {
					b.Fatal(err)
				}
				n += resp.Read
			}
			b.SetBytes(n / int64(b.N))
		})
	}
}

// BenchmarkReadResponse is the parser alone, from memory.
func BenchmarkReadResponse(b *testing.B) {
	in := []byte(benchResponse)
	src := bytes.NewReader(in)
	rd := newReader(src, initialBufSize)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		src.Reset(in)
		rd.err = nil
		if _, err := rd.readResponse(false, false, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAbort checks that Abort from another goroutine ends a Do blocked on a silent server.
func TestAbort(t *testing.T) {
	checkAbort(t, func(handle func(net.Conn)) *Conn { return dialT(t, startRaw(t, handle).addr()) })
}

// checkAbort checks that Abort ends a Do blocked on the connection that dial opens to a server
// running handle, at once and not as a timeout.
func checkAbort(t *testing.T, dial func(handle func(net.Conn)) *Conn) {
	t.Helper()
	got := make(chan struct{})
	c := dial(func(c net.Conn) {
		readRequest(c, make([]byte, 4096))
		close(got) // the request arrived; Do is now waiting for the response
		io.Copy(io.Discard, c)
	})
	done := make(chan error, 1)
	go func() {
		_, err := c.Do(getReq, time.Now().Add(time.Minute))
		done <- err
	}()
	<-got
	if err := c.Abort(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || ClassOf(err) == Timeout {
			t.Fatalf("Do after Abort = %v, want a prompt non-timeout error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Do still blocked 5 s after Abort")
	}
}

// TestDoBodyLongerThanContentLength: seed 4's ReactPHP sent "Hello world!\n" under
// Content-Length: 12. The extra byte is a Length error of that response, not a success (as wrk
// counts it) nor a read error of the next one; an exact body is no error.
func TestDoBodyLongerThanContentLength(t *testing.T) {
	for _, tc := range []struct {
		body string
		want error
	}{{"Hello world!\n", errAny}, {"Hello world!", nil}} {
		srv := startRaw(t, respondAlways("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"+tc.body))
		c := dialT(t, srv.addr())
		resp, err := c.Do(getReq, deadline())
		var e *Error
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%q: %v", tc.body, err)
		case tc.want != nil && (!errors.As(err, &e) || e.Class != Length || !strings.Contains(err.Error(), "1 byte(s) followed")):
			t.Errorf("%q: err %v; want a Length error naming the 1 extra byte", tc.body, err)
		case resp.Status != 200 || resp.BodyLen != 12:
			t.Errorf("%q: response %+v", tc.body, resp)
		}
	}
}
