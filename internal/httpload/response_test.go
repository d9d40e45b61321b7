package httpload

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readers returns the ways a test feeds a server's bytes to the parser: all at once, one byte per
// read (a server writing byte by byte), half of each read, and with io.EOF on the last data read.
var readers = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"byte-by-byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	{"data-eof", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
}

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		head bool
		want Response // Body holds the wanted body; Read is always len(in)
	}{
		{
			name: "content-length",
			in:   "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nHello world!",
			want: Response{Status: 200, BodyLen: 12, KeepAlive: true, Body: []byte("Hello world!")},
		},
		{
			name: "no reason phrase, bare LF, mixed-case names",
			in:   "HTTP/1.1 201\ncontent-LENGTH:   2  \n\nok",
			want: Response{Status: 201, BodyLen: 2, KeepAlive: true, Body: []byte("ok")},
		},
		{
			name: "identical duplicate content-length",
			in:   "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
			want: Response{Status: 200, BodyLen: 1, KeepAlive: true, Body: []byte("x")},
		},
		{
			name: "chunked with extensions and trailers",
			in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
				"5\r\nHello\r\n7;name=value\r\n world!\r\nA  \r\n0123456789\r\n0\r\nX-Sum: 1\r\nX-More: 2\r\n\r\n",
			want: Response{Status: 200, BodyLen: 22, KeepAlive: true, Body: []byte("Hello world!0123456789")},
		},
		{
			name: "chunked, lowercase, no trailers",
			in:   "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\nb\r\nhello world\r\n0\r\n\r\n",
			want: Response{Status: 200, BodyLen: 11, KeepAlive: true, Body: []byte("hello world")},
		},
		{
			name: "chunked wins over content-length",
			in:   "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
			want: Response{Status: 200, BodyLen: 2, KeepAlive: true, Body: []byte("hi")},
		},
		{
			name: "close-delimited",
			in:   "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
			want: Response{Status: 200, BodyLen: 13, KeepAlive: false, Body: []byte("until the end")},
		},
		{
			name: "transfer-encoding not chunked is close-delimited",
			in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzz",
			want: Response{Status: 200, BodyLen: 3, KeepAlive: false, Body: []byte("zzz")},
		},
		{
			name: "connection close",
			in:   "HTTP/1.1 200 OK\r\nConnection: keep-alive, CLOSE\r\nContent-Length: 0\r\n\r\n",
			want: Response{Status: 200, KeepAlive: false, Body: []byte{}},
		},
		{
			name: "http/1.0 closes by default",
			in:   "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi",
			want: Response{Status: 200, BodyLen: 2, KeepAlive: false, Body: []byte("hi")},
		},
		{
			name: "http/1.0 keep-alive",
			in:   "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi",
			want: Response{Status: 200, BodyLen: 2, KeepAlive: true, Body: []byte("hi")},
		},
		{
			name: "http/1.0 close-delimited",
			in:   "HTTP/1.0 200 OK\r\n\r\nold",
			want: Response{Status: 200, BodyLen: 3, KeepAlive: false, Body: []byte("old")},
		},
		{
			name: "head ignores content-length",
			in:   "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n",
			head: true,
			want: Response{Status: 200, KeepAlive: true, Body: []byte{}},
		},
		{
			name: "204 has no body",
			in:   "HTTP/1.1 204 No Content\r\n\r\n",
			want: Response{Status: 204, KeepAlive: true, Body: []byte{}},
		},
		{
			name: "304 ignores content-length",
			in:   "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n",
			want: Response{Status: 304, KeepAlive: true, Body: []byte{}},
		},
		{
			name: "interim 100 and 103 are skipped",
			in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" +
				"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
			want: Response{Status: 200, BodyLen: 2, KeepAlive: true, Body: []byte("ok")},
		},
		{
			name: "101 ends http",
			in:   "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
			want: Response{Status: 101, KeepAlive: false, Body: []byte{}},
		},
		{
			name: "folded header we ignore",
			in:   "HTTP/1.1 200 OK\r\nX-Long: a\r\n b\r\nContent-Length: 1\r\n\r\nx",
			want: Response{Status: 200, BodyLen: 1, KeepAlive: true, Body: []byte("x")},
		},
		{
			name: "error status with body",
			in:   "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy",
			want: Response{Status: 503, BodyLen: 4, KeepAlive: true, Body: []byte("busy")},
		},
	}
	for _, tt := range tests {
		for _, r := range readers {
			for _, keep := range []bool{false, true} {
				name := tt.name + "/" + r.name
				if keep {
					name += "/keep"
				}
				t.Run(name, func(t *testing.T) {
					rd := newReader(r.wrap([]byte(tt.in)), 16)
					var body []byte
					got, err := rd.readResponse(tt.head, keep, &body)
					if err != nil {
						t.Fatalf("readResponse: %v", err)
					}
					want := tt.want
					want.Read = int64(len(tt.in))
					if !keep {
						want.Body = nil
					}
					if got.Status != want.Status || got.BodyLen != want.BodyLen || got.Read != want.Read ||
						got.KeepAlive != want.KeepAlive || !bytes.Equal(got.Body, want.Body) {
						t.Errorf("got %+v (body %q), want %+v (body %q)", got, got.Body, want, want.Body)
					}
				})
			}
		}
	}
}

func TestReadResponseErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		is      error // if set, errors.Is(err, is) must hold
	}{
		{name: "nothing", in: "", wantErr: "before any response bytes", is: io.EOF},
		{name: "mid status line", in: "HTTP/1.1 20", wantErr: "mid-response", is: io.ErrUnexpectedEOF},
		{name: "mid headers", in: "HTTP/1.1 200 OK\r\nContent-Len", wantErr: "mid-response", is: io.ErrUnexpectedEOF},
		{name: "before blank line", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", wantErr: "mid-response", is: io.ErrUnexpectedEOF},
		{name: "mid body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", wantErr: "after 42 bytes", is: io.ErrUnexpectedEOF},
		{name: "mid chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", wantErr: "mid-response", is: io.ErrUnexpectedEOF},
		{name: "no last chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", wantErr: "mid-response", is: io.ErrUnexpectedEOF},
		{name: "mid trailers", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n", wantErr: "mid-response", is: io.ErrUnexpectedEOF},
		{name: "not http", in: "SSH-2.0-OpenSSH_9.2\r\n", wantErr: "malformed status line"},
		{name: "http/2 preface", in: "HTTP/2 200\r\n\r\n", wantErr: "malformed status line"},
		{name: "letters in status", in: "HTTP/1.1 2OO OK\r\n\r\n", wantErr: "malformed status line"},
		{name: "status below 100", in: "HTTP/1.1 099 Odd\r\n\r\n", wantErr: "status below 100"},
		{name: "four-digit status", in: "HTTP/1.1 2000 OK\r\n\r\n", wantErr: "malformed status line"},
		{name: "header without colon", in: "HTTP/1.1 200 OK\r\nBroken\r\n\r\n", wantErr: "malformed header line"},
		{name: "space before colon", in: "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx", wantErr: "malformed header name"},
		{name: "negative content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", wantErr: "malformed Content-Length"},
		{name: "huge content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", wantErr: "malformed Content-Length"},
		{name: "conflicting content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", wantErr: "conflicting"},
		{name: "folded framing header", in: "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n close\r\n\r\n", wantErr: "folded"},
		{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wantErr: "malformed chunk size"},
		{name: "empty chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", wantErr: "empty chunk size"},
		{name: "huge chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", wantErr: "too large"},
		{name: "chunk without crlf", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", wantErr: "not followed by CRLF"},
		{name: "header too large", in: "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", wantErr: "larger than 64 KiB"},
		{name: "many headers too large", in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Some-Header: some value\r\n", 3000) + "\r\n", wantErr: "larger than 64 KiB"},
		{name: "trailers too large", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + strings.Repeat("X-Some-Trailer: value\r\n", 4000) + "\r\n", wantErr: "trailers larger than 64 KiB"},
		{name: "endless interim responses", in: strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 20), wantErr: "interim"},
	}
	for _, tt := range tests {
		for _, r := range readers {
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				rd := newReader(r.wrap([]byte(tt.in)), 16)
				var body []byte
				_, err := rd.readResponse(false, true, &body)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				if ClassOf(err) != Read {
					t.Errorf("class = %v, want read", ClassOf(err))
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
				}
			})
		}
	}
}

// TestReadResponseLeftover checks that bytes after a response stay buffered for the next one, so
// a pipelining server, or one whose responses arrive in odd pieces, loses nothing.
func TestReadResponseLeftover(t *testing.T) {
	responses := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nthree",
		"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfour",
	}
	wantBodies := []string{"one", "two", "", "three", "four"}
	in := []byte(strings.Join(responses, ""))
	for _, r := range readers {
		for _, size := range []int{16, initialBufSize} {
			rd := newReader(r.wrap(in), size)
			var body []byte
			for i, want := range wantBodies {
				resp, err := rd.readResponse(false, true, &body)
				if err != nil {
					t.Fatalf("%s/%d: response %d: %v", r.name, size, i, err)
				}
				if string(resp.Body) != want || resp.Read != int64(len(responses[i])) {
					t.Fatalf("%s/%d: response %d: body %q read %d, want %q and %d", r.name, size, i, resp.Body, resp.Read, want, len(responses[i]))
				}
			}
			if _, err := rd.readResponse(false, false, &body); !errors.Is(err, io.EOF) {
				t.Fatalf("%s/%d: after the last response: %v, want EOF", r.name, size, err)
			}
		}
	}
}

// TestReadResponseLargeBody checks that a body far larger than the buffer streams through, and
// that the buffer grows for it but no further than its limit.
func TestReadResponseLargeBody(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	in := append([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n"), body...)
	rd := newReader(bytes.NewReader(in), initialBufSize)
	var kept []byte
	resp, err := rd.readResponse(false, true, &kept)
	if err != nil {
		t.Fatal(err)
	}
	if resp.BodyLen != int64(len(body)) || !bytes.Equal(resp.Body, body) {
		t.Fatalf("body of %d bytes, want %d", resp.BodyLen, len(body))
	}
	if len(rd.buf) > maxHeaderBytes {
		t.Fatalf("buffer grew to %d, past its limit %d", len(rd.buf), maxHeaderBytes)
	}
}

// FuzzResponse feeds arbitrary bytes to the parser as a server's answer to several requests. It
// must never panic nor hang, and never claim more bytes than it was given.
func FuzzResponse(f *testing.F) {
	seeds := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nrest",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 3\r\n\r\n",
		"HTTP/1.1 200 OK\nConnection: close\n\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n",
	}
	for i, s := range seeds {
		f.Add(byte(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		var src io.Reader = bytes.NewReader(data)
		switch mode % 4 {
		case 1:
			src = iotest.OneByteReader(src)
		case 2:
			src = iotest.HalfReader(src)
		case 3:
			src = iotest.DataErrReader(src)
		}
		rd := newReader(src, 16)
		keep := mode&4 != 0
		var body []byte
		var total int64
		for i := range 8 {
			head := mode&(8<<(i%4)) != 0
			resp, err := rd.readResponse(head, keep, &body)
			if resp.Read < 0 || resp.BodyLen < 0 {
				t.Fatalf("negative counts: %+v", resp)
			}
			total += resp.Read
			if total > int64(len(data)) {
				t.Fatalf("consumed %d bytes of %d", total, len(data))
			}
			if err != nil {
				if ClassOf(err) != Read {
					t.Fatalf("class %v for %v", ClassOf(err), err)
				}
				return
			}
			if keep && int64(len(resp.Body)) != resp.BodyLen {
				t.Fatalf("kept %d body bytes, BodyLen %d", len(resp.Body), resp.BodyLen)
			}
			if !resp.KeepAlive {
				return
			}
		}
	})
}
