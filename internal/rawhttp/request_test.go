package rawhttp

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

var testDate = []byte("Date: Sat, 21 Nov 2026 15:04:05 GMT\r\n")

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		refuse *Answer
		method Method
		path   string
		n      int // bytes consumed; -1 means all of in
		close  bool
		body   int64
	}{
		{name: "get", in: "GET / HTTP/1.1\r\nHost: x\r\n\r\nrest", method: MethodGet, path: "/", n: 27},
		{name: "head", in: "HEAD /a?b HTTP/1.1\r\nhost: x\r\n\r\n", method: MethodHead, path: "/a", n: -1},
		{name: "incomplete", in: "GET / HTTP/1.1\r\nHost: x\r\n", n: 0},
		{name: "incomplete line", in: "GET / HTT", n: 0},
		{name: "bare LF", in: "GET / HTTP/1.1\nHost: x\n\n", method: MethodGet, path: "/", n: -1},
		{name: "close", in: "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Close\r\n\r\n", method: MethodGet, path: "/", n: -1, close: true},
		{name: "1.0", in: "GET / HTTP/1.0\r\n\r\n", method: MethodGet, path: "/", n: -1, close: true},
		{name: "1.0 keep-alive", in: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", method: MethodGet, path: "/", n: -1},
		{name: "body", in: "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n", method: MethodOther, path: "/x", n: -1, body: 7},
		{name: "absolute form", in: "GET http://h:1/cache/redis?x HTTP/1.1\r\nHost: h\r\n\r\n", method: MethodGet, path: "/cache/redis", n: -1},
		{name: "absolute form without path", in: "GET http://h HTTP/1.1\r\nHost: h\r\n\r\n", method: MethodGet, path: "/", n: -1},
		{name: "asterisk", in: "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", method: MethodOther, path: "*", n: -1},
		{name: "two hosts", in: "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", refuse: answerNoHost, n: -1, close: true},
		{name: "space before colon", in: "GET / HTTP/1.1\r\nHost : x\r\n\r\n", refuse: answerBadHeader, n: -1, close: true},
		{name: "folded", in: "GET / HTTP/1.1\r\nHost: x\r\n y\r\n\r\n", refuse: answerBadHeader, n: -1, close: true},
		{name: "conflicting length", in: "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", refuse: answerBadLength, n: -1, close: true},
		{name: "te", in: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", refuse: answerChunked, n: -1, close: true},
		{name: "lowercase version", in: "GET / http/1.1\r\nHost: x\r\n\r\n", refuse: answerBadLine, n: -1, close: true},
		{name: "control in target", in: "GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n", refuse: answerBadLine, n: -1, close: true},
		{name: "long line", in: "GET /" + strings.Repeat("a", 17<<10), refuse: answerTooLarge, n: -1, close: true},
		{name: "long complete line", in: "GET /" + strings.Repeat("a", 17<<10) + " HTTP/1.1\r\n", refuse: answerTooLarge, n: -1, close: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, n := parseRequest([]byte(tt.in))
			if tt.n < 0 {
				tt.n = len(tt.in)
			}
			ok := n == tt.n && req.refuse == tt.refuse && req.close == tt.close && req.contentLength == tt.body
			if ok && n > 0 && tt.refuse == nil {
				ok = req.Method == tt.method && string(req.Path) == tt.path
			}
			if !ok {
				t.Fatalf("parseRequest = %+v, %d; want refuse %p, method %d, path %q, n %d, close %v, body %d",
					req, n, tt.refuse, tt.method, tt.path, tt.n, tt.close, tt.body)
			}
		})
	}
}

// hello is the test's Handler: hello's answers (GET / -> 200, another path 404, another method
// on / 405).
func hello(_ context.Context, req Request, a *Answer) {
	switch {
	case string(req.Path) != "/":
		a.Status, a.Body = 404, append(a.Body, "not found\n"...)
	case req.Method == MethodOther:
		a.Status, a.Header, a.Body = 405, "Allow: GET, HEAD\r\n", append(a.Body, "method not allowed\n"...)
	default:
		a.Status, a.Body = 200, append(a.Body, "Hello world!"...)
	}
}

// newSession is a session with the test's Handler.
func newSession() session { return session{ctx: context.Background(), handler: hello} }

// feed drives a session the way serveConn does, with the input cut into the given pieces, and
// returns everything it would have written.
func feed(in []byte, pieces []int) []byte {
	sess := newSession()
	var buf, out []byte
	for len(in) > 0 {
		k := len(in)
		if len(pieces) > 0 {
			k = min(max(pieces[0], 1), len(in))
			pieces = pieces[1:]
		}
		buf, in = append(buf, in[:k]...), in[k:]
		for len(buf) > 0 {
			n, o, closeAfter := sess.process(buf, nil, testDate)
			out = append(out, o...)
			buf = buf[n:]
			if closeAfter {
				return out
			}
			if n == 0 {
				break
			}
		}
	}
	return out
}

func TestProcessSplitsAnywhere(t *testing.T) {
	in := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\nPOST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbodyHEAD /a HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
	whole := feed(in, nil)
	if got := bytes.Count(whole, []byte("HTTP/1.1 ")); got != 4 {
		t.Fatalf("%d responses, want 4 (the request after the HTTP/1.0 one is not answered):\n%s", got, whole)
	}
	for size := 1; size < 40; size++ {
		pieces := make([]int, len(in))
		for i := range pieces {
			pieces[i] = size
		}
		if got := feed(in, pieces); !bytes.Equal(got, whole) {
			t.Fatalf("fed %d bytes at a time:\n%s\nwant\n%s", size, got, whole)
		}
	}
}

func TestProcessAllocs(t *testing.T) {
	in := bytes.Repeat([]byte("GET / HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: wrk\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n"), 16)
	out := make([]byte, 0, 8<<10)
	sess := newSession()
	allocs := testing.AllocsPerRun(1000, func() {
		n, o, _ := sess.process(in, out[:0], testDate)
		if n != len(in) || len(o) == 0 {
			t.Fatal("not all requests answered")
		}
	})
	if allocs != 0 {
		t.Fatalf("process allocates %v times per batch, want 0", allocs)
	}
}

// FuzzProcess feeds arbitrary bytes to the request loop, whole and in pieces: it must never panic,
// never consume more than it was given, answer only with well-formed status lines, and answer the
// same however the input is cut.
func FuzzProcess(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /x HTTP/1.1\r\nHost: y\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"\r\n\r\nGET http://h/ HTTP/1.1\nHost: h\n\n",
		"GET / HTTP/2.0\r\n\r\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		sess := newSession()
		n, out, _ := sess.process(in, nil, testDate)
		if n < 0 || n > len(in) {
			t.Fatalf("consumed %d of %d bytes", n, len(in))
		}
		if len(out) > 0 && !bytes.HasPrefix(out, []byte("HTTP/1.1 ")) {
			t.Fatalf("response does not start with a status line: %q", out)
		}
		pieces := make([]int, len(in))
		for i := range pieces {
			pieces[i] = int(size)
		}
		if whole, cut := feed(in, nil), feed(in, pieces); !bytes.Equal(whole, cut) {
			t.Fatalf("input cut in pieces of %d answered differently:\n%q\nwant\n%q", size, cut, whole)
		}
	})
}

func BenchmarkProcess(b *testing.B) {
	// 16 pipelined wrk-like requests per batch, as the server sees them arrive.
	in := bytes.Repeat([]byte("GET / HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"), 16)
	out := make([]byte, 0, 8<<10)
	sess := newSession()
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		sess.process(in, out[:0], testDate)
	}
}
