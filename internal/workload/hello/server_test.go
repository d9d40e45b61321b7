package hello

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/httpload"
)

// start runs Serve on a free 127.0.0.1 port; cancel stops it and waits for Serve to return.
func start(tb testing.TB) (addr string, cancel func()) {
	tb.Helper()
	ln := listen(tb)
	return ln.Addr().String(), serve(tb, ln)
}

func listen(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}

// serve runs Serve on ln until the returned cancel, which waits for Serve to return.
func serve(tb testing.TB, ln net.Listener) (cancel func()) {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln) }()
	var stopped bool
	cancel = func() {
		if stopped {
			return
		}
		stopped = true
		stop()
		if err := <-done; err != nil {
			tb.Errorf("Serve returned %v after cancel, want nil", err)
		}
	}
	tb.Cleanup(cancel)
	return cancel
}

func TestNetHTTPClient(t *testing.T) {
	addr, _ := start(t)
	tests := []struct {
		method, path string
		status       int
		body         string
		allow        string
	}{
		{"GET", "/", 200, "Hello world!", ""},
		{"GET", "/?q=1", 200, "Hello world!", ""},
		{"HEAD", "/", 200, "", ""},
		{"GET", "/other", 404, "not found: iobench hello serves only GET /\n", ""},
		{"POST", "/", 405, "method not allowed: use GET or HEAD\n", "GET, HEAD"},
		{"DELETE", "/", 405, "method not allowed: use GET or HEAD\n", "GET, HEAD"},
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, "http://"+addr+tt.path, strings.NewReader(""))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || string(body) != tt.body {
				t.Fatalf("%d %q, want %d %q", resp.StatusCode, body, tt.status, tt.body)
			}
			if tt.status == 200 && resp.ContentLength != 12 {
				t.Errorf("Content-Length %d, want 12", resp.ContentLength)
			}
			h := resp.Header
			if h.Get("Content-Type") != "text/plain; charset=utf-8" || h.Get("Server") != "iobench" || h.Get("Allow") != tt.allow {
				t.Errorf("headers %v", h)
			}
			d, err := http.ParseTime(h.Get("Date"))
			if err != nil || time.Since(d).Abs() > time.Minute {
				t.Errorf("Date %q: %v", h.Get("Date"), err)
			}
		})
	}
}

func TestRawSockets(t *testing.T) {
	const get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	tests := []struct {
		name      string
		send      []string // written one after the other
		want      []int    // statuses, in order
		wantConn  string   // Connection header of the last response
		wantClose bool     // the server closes after the last response
	}{
		{name: "pipelined", send: []string{get + get + "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n" + "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" + get},
			want: []int{200, 200, 404, 405, 200}},
		{name: "deep pipeline", send: []string{strings.Repeat(get, 1000)}, want: repeat(200, 1000)},
		{name: "byte by byte", send: strings.Split(get+get, ""), want: []int{200, 200}},
		{name: "split across writes", send: []string{"GET / HT", "TP/1.1\r\nHo", "st: x\r\n", "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"}, want: []int{200, 200}},
		{name: "body discarded", send: []string{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello", " world" + get},
			want: []int{405, 200}},
		{name: "connection close", send: []string{"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" + get}, want: []int{200}, wantConn: "close", wantClose: true},
		{name: "http/1.0 closes", send: []string{"GET / HTTP/1.0\r\n\r\n"}, want: []int{200}, wantConn: "close", wantClose: true},
		{name: "http/1.0 keep-alive", send: []string{"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"}, want: []int{200}, wantConn: "keep-alive"},
		{name: "leading empty line", send: []string{"\r\n" + get}, want: []int{200}},
		{name: "absolute form", send: []string{"GET http://x/?a=b HTTP/1.1\r\nHost: x\r\n\r\n"}, want: []int{200}},
		{name: "malformed request line", send: []string{"GET /\r\n\r\n"}, want: []int{400}, wantConn: "close", wantClose: true},
		{name: "not http", send: []string{"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n"}, want: []int{400}, wantConn: "close", wantClose: true},
		{name: "malformed header", send: []string{"GET / HTTP/1.1\r\nHost: x\r\nBroken\r\n\r\n" + get}, want: []int{400}, wantConn: "close", wantClose: true},
		{name: "missing host", send: []string{"GET / HTTP/1.1\r\n\r\n"}, want: []int{400}, wantConn: "close", wantClose: true},
		{name: "bad content-length", send: []string{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"}, want: []int{400}, wantConn: "close", wantClose: true},
		{name: "chunked body", send: []string{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"}, want: []int{501}, wantConn: "close", wantClose: true},
		{name: "header too large", send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 17<<10) + "\r\n\r\n"}, want: []int{431}, wantConn: "close", wantClose: true},
		{name: "never-ending header", send: []string{"GET / HTTP/1.1\r\nHost: x\r\n", strings.Repeat("X-Some: header\r\n", 2000)}, want: []int{431}, wantConn: "close", wantClose: true},
		{name: "http/2", send: []string{"GET / HTTP/2.0\r\nHost: x\r\n\r\n"}, want: []int{505}, wantConn: "close", wantClose: true},
		{name: "ok then bad", send: []string{get + "BAD\r\n\r\n"}, want: []int{200, 400}, wantConn: "close", wantClose: true},
	}
	addr, _ := start(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second)) // a bound, not a synchronization
			// Write from a goroutine: a deep pipeline fills both socket buffers before the test reads.
			werr := make(chan error, 1)
			go func() {
				for _, s := range tt.send {
					if _, err := io.WriteString(c, s); err != nil {
						werr <- err
						return
					}
				}
				werr <- nil
			}()
			br := bufio.NewReader(c)
			var last *http.Response
			for i, want := range tt.want {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("response %d: %v", i, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Fatalf("response %d: status %d, want %d", i, resp.StatusCode, want)
				}
				last = resp
			}
			// net/http moves "Connection: close" into resp.Close.
			if got := last.Header.Get("Connection"); last.Close != (tt.wantConn == "close") ||
				(tt.wantConn != "close" && got != tt.wantConn) {
				t.Errorf("Connection: %q (close %v), want %q", got, last.Close, tt.wantConn)
			}
			if tt.wantClose {
				if n, err := br.Read(make([]byte, 1)); err != io.EOF {
					t.Fatalf("after the last response: %d bytes, %v; want EOF", n, err)
				}
				return
			}
			if err := <-werr; err != nil {
				t.Fatal(err)
			}
			// The connection is still open and serves the next request.
			io.WriteString(c, get)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("request after the case: %v, %v", resp, err)
			}
		})
	}
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func TestHEAD(t *testing.T) {
	addr, _ := start(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\nHEAD /x HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	for i, want := range []struct {
		method string
		status int
		body   string
	}{{"HEAD", 200, ""}, {"HEAD", 404, ""}, {"GET", 200, "Hello world!"}} {
		resp, err := http.ReadResponse(br, &http.Request{Method: want.method})
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want.status || string(body) != want.body {
			t.Fatalf("response %d: %d %q, want %d %q", i, resp.StatusCode, body, want.status, want.body)
		}
		if want.status == 200 && resp.ContentLength != 12 {
			t.Fatalf("response %d: Content-Length %d, want 12", i, resp.ContentLength)
		}
	}
}

func TestServeStopsOnCancel(t *testing.T) {
	ln := listen(t)
	cancel := serve(t, ln)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	cancel() // returns once Serve did
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the open keep-alive connection survived cancel")
	}
	// Asked of the listener itself: a new dial could reach another test
	// process that took the freed port. The deadline turns a listener left
	// open into a failure, not a hang.
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(time.Second))
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after cancel = %v, want net.ErrClosed", err)
	}
}

func TestServeListenerError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // Accept fails at once, not because of ctx
	if err := Serve(context.Background(), ln); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Serve on a closed listener = %v, want net.ErrClosed", err)
	}
}

// TestHTTPLoadClient runs the engine's own client against the server: keep-alive and exact.
func TestHTTPLoadClient(t *testing.T) {
	addr, _ := start(t)
	c, err := httpload.Dial(context.Background(), addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetKeepBody(true)
	tg, err := httpload.ParseURL("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	req := httpload.RequestSpec{Target: tg}.Build()
	for i := range 1000 {
		resp, err := c.Do(req, time.Now().Add(10*time.Second))
		if err != nil || resp.Status != 200 || string(resp.Body) != "Hello world!" || !resp.KeepAlive {
			t.Fatalf("request %d: %+v %v", i, resp, err)
		}
	}
}

func BenchmarkServe(b *testing.B) {
	addr, _ := start(b)
	c, err := httpload.Dial(context.Background(), addr, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := httpload.RequestSpec{Target: httpload.Target{Host: addr, RequestURI: "/"}}.Build()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(req, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}
