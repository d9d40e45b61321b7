package httpload

import (
	"testing"
)

// TestParserResumes feeds each response to a Parser in two pieces, split at every offset, as an
// event loop would see it arrive: before the last byte Parse must ask for more without failing,
// and the result must not depend on the split.
func TestParserResumes(t *testing.T) {
	tests := []struct {
		name, in string
		status   int
		bodyLen  int64
		eof      bool // the body ends with the connection
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, 5, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nhel\r\n2\r\nlo\r\n0\r\nT: 1\r\n\r\n", 200, 5, false},
		{"interim", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", 204, 0, false},
		{"close-delimited", "HTTP/1.0 200 OK\r\n\r\nhello", 200, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for split := 0; split <= len(tt.in); split++ {
				p := NewParser(16)
				p.SetKeepBody(true)
				p.Begin(false)
				done := feed(t, p, tt.in[:split])
				if done && split < len(tt.in) {
					t.Fatalf("split %d: complete before its last byte", split)
				}
				if !done {
					done = feed(t, p, tt.in[split:])
				}
				if tt.eof {
					if done {
						t.Fatalf("split %d: a close-delimited body complete before the close", split)
					}
					var err error
					if done, err = p.EOF(); err != nil {
						t.Fatalf("split %d: EOF: %v", split, err)
					}
				}
				resp := p.Response()
				if !done || resp.Status != tt.status || resp.BodyLen != tt.bodyLen || resp.Read != int64(len(tt.in)) || int64(len(resp.Body)) != tt.bodyLen {
					t.Fatalf("split %d: done %v, %+v; want status %d, body %d, read %d", split, done, resp, tt.status, tt.bodyLen, len(tt.in))
				}
			}
		})
	}
}

// feed copies in into p through Space and Wrote, as a socket read would, and parses.
func feed(t *testing.T, p *Parser, in string) bool {
	t.Helper()
	var done bool
	for {
		var err error
		if done, err = p.Parse(); err != nil {
			t.Fatalf("parse: %v", err)
		}
		if done || in == "" {
			return done
		}
		space, err := p.Space()
		if err != nil {
			t.Fatal(err)
		}
		n := copy(space, in)
		p.Wrote(n)
		in = in[n:]
	}
}

// BenchmarkParserNginx parses nginx 1.22's answer to a GET of its "hello" location, one read per
// response, as the event loop does for every request.
func BenchmarkParserNginx(b *testing.B) {
	const resp = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 23 Nov 2026 15:59:27 GMT\r\n" +
		"Content-Type: text/plain\r\nContent-Length: 12\r\nConnection: keep-alive\r\n\r\nHello world!"
	p := NewParser(4 << 10)
	b.SetBytes(int64(len(resp)))
	b.ReportAllocs()
	for b.Loop() {
		p.Begin(false)
		space, err := p.Space()
		if err != nil {
			b.Fatal(err)
		}
		p.Wrote(copy(space, resp))
		if done, err := p.Parse(); !done || err != nil || p.Leftover() != nil || p.Response().Status != 200 {
			b.Fatalf("done %v, err %v", done, err)
		}
	}
}
