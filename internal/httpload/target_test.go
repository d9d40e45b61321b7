package httpload

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/httpbytes"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw     string
		want    Target
		wantErr string // substring of the error; "" means success
	}{
		{raw: "http://127.0.0.1:8080/", want: Target{Addr: "127.0.0.1:8080", Host: "127.0.0.1:8080", RequestURI: "/"}},
		{raw: "http://example.com", want: Target{Addr: "example.com:80", Host: "example.com", RequestURI: "/"}},
		{raw: "HTTP://example.com/a/b?x=1&y=2#frag", want: Target{Addr: "example.com:80", Host: "example.com", RequestURI: "/a/b?x=1&y=2"}},
		{raw: "http://example.com?q=1", want: Target{Addr: "example.com:80", Host: "example.com", RequestURI: "/?q=1"}},
		{raw: "http://example.com:/", want: Target{Addr: "example.com:80", Host: "example.com", RequestURI: "/"}},
		{raw: "http://[::1]:9000/x", want: Target{Addr: "[::1]:9000", Host: "[::1]:9000", RequestURI: "/x"}},
		{raw: "http://h/a%20b", want: Target{Addr: "h:80", Host: "h", RequestURI: "/a%20b"}},
		{raw: "http://h/a b", want: Target{Addr: "h:80", Host: "h", RequestURI: "/a%20b"}},
		{raw: "", wantErr: "empty URL"},
		{raw: "127.0.0.1:8080/", wantErr: "missing scheme"},
		{raw: "https://example.com/", want: Target{Addr: "example.com:443", Host: "example.com", RequestURI: "/", TLS: true}},
		{raw: "HTTPS://127.0.0.1:8443/x?y", want: Target{Addr: "127.0.0.1:8443", Host: "127.0.0.1:8443", RequestURI: "/x?y", TLS: true}},
		{raw: "https://[::1]/", want: Target{Addr: "[::1]:443", Host: "[::1]", RequestURI: "/", TLS: true}},
		{raw: "ftp://example.com/", wantErr: "only http and https"},
		{raw: "http://", wantErr: "missing host"},
		{raw: "http:///path", wantErr: "missing host"},
		{raw: "http://user:pw@example.com/", wantErr: "user info"},
		{raw: "http://example.com:99999/", wantErr: "1-65535"},
		{raw: "http://example.com:0/", wantErr: "1-65535"},
		{raw: "http://example.com:abc/", wantErr: "invalid port"},
		{raw: "http://h/?q=a b", wantErr: "percent-encode"},
		{raw: "http://h/\x00", wantErr: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseURL(tt.raw)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseURL(%q) error = %v, want one containing %q", tt.raw, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tt.raw, err)
			}
			if got != tt.want {
				t.Errorf("ParseURL(%q) = %+v, want %+v", tt.raw, got, tt.want)
			}
			if again, err := ParseURL(got.URL()); err != nil || again != got {
				t.Errorf("ParseURL(%q.URL() = %q) = %+v, %v; want the same target", tt.raw, got.URL(), again, err)
			}
		})
	}
}

func TestServerName(t *testing.T) {
	for addr, want := range map[string]string{"example.com:443": "example.com", "127.0.0.1:8443": "127.0.0.1", "[::1]:443": "::1"} {
		if got := (Target{Addr: addr}).ServerName(); got != want {
			t.Errorf("ServerName of %s = %q, want %q", addr, got, want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in      string
		want    Header
		wantErr string
	}{
		{in: "Accept: text/plain", want: Header{"Accept", "text/plain"}},
		{in: "X-Empty:", want: Header{"X-Empty", ""}},
		{in: "X-Pad: \t a b \t", want: Header{"X-Pad", "a b"}},
		{in: "Authorization: Bearer a:b:c", want: Header{"Authorization", "Bearer a:b:c"}},
		{in: "no colon", wantErr: "missing ':'"},
		{in: ": value", wantErr: "empty name"},
		{in: "Bad Name: v", wantErr: "not allowed in a header name"},
		{in: "X-A: a\r\nX-B: b", wantErr: "control character"},
		{in: "X-A: \x00", wantErr: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseHeader(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseHeader(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "Name: value") {
					t.Errorf("error %q has no hint", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseHeader(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	target := Target{Addr: "127.0.0.1:8080", Host: "127.0.0.1:8080", RequestURI: "/x?y=1"}
	tests := []struct {
		name string
		spec RequestSpec
		want string
	}{
		{
			name: "get defaults",
			spec: RequestSpec{Target: target},
			want: "GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: iobench\r\n\r\n",
		},
		{
			name: "user host and agent replace the defaults",
			spec: RequestSpec{Method: "GET", Target: target, Headers: []Header{{"host", "example.com"}, {"User-Agent", "me"}, {"Accept", "*/*"}}},
			want: "GET /x?y=1 HTTP/1.1\r\nhost: example.com\r\nUser-Agent: me\r\nAccept: */*\r\n\r\n",
		},
		{
			name: "post with body, user content-length dropped",
			spec: RequestSpec{Method: "POST", Target: target, Headers: []Header{{"Content-Length", "99"}}, Body: []byte("a=1")},
			want: "POST /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: iobench\r\nContent-Length: 3\r\n\r\na=1",
		},
		{
			name: "empty put still has content-length",
			spec: RequestSpec{Method: "PUT", Target: target},
			want: "PUT /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: iobench\r\nContent-Length: 0\r\n\r\n",
		},
		{
			name: "close",
			spec: RequestSpec{Method: "HEAD", Target: Target{Host: "h"}, Close: true},
			want: "HEAD / HTTP/1.1\r\nHost: h\r\nUser-Agent: iobench\r\nConnection: close\r\n\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.spec.Build()); got != tt.want {
				t.Errorf("Build() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/", "http://[::1]/a?b#c", "https://x/", "http://u@h:1/", "http://h:65536", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tg, err := ParseURL(raw)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") && !strings.ContainsAny(raw, "\r\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if tg.Addr == "" || tg.Host == "" || !strings.HasPrefix(tg.RequestURI, "/") {
			t.Fatalf("ParseURL(%q) = %+v: empty field", raw, tg)
		}
		if !validHeaderValue(tg.Host) {
			t.Fatalf("ParseURL(%q): Host %q would break the request", raw, tg.Host)
		}
		for _, c := range []byte(tg.RequestURI) {
			if c <= ' ' || c == 0x7f {
				t.Fatalf("ParseURL(%q): RequestURI %q would break the request line", raw, tg.RequestURI)
			}
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Accept: */*", "a:", ":", "x", "A B: c", "X: a\r\nY: b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeader(s)
		if err != nil {
			return
		}
		if !httpbytes.IsToken(h.Name) || !validHeaderValue(h.Value) {
			t.Fatalf("ParseHeader(%q) = %+v: invalid header accepted", s, h)
		}
		// A parsed header must survive the round trip through Build and the response parser's
		// header-line grammar.
		line := []byte(h.Name + ": " + h.Value)
		var hd header
		if _, err := parseHeaderLine(line, &hd); err != nil && !strings.Contains(err.Error(), "Content-Length") &&
			!strings.Contains(err.Error(), "conflicting") {
			t.Fatalf("header %q from ParseHeader(%q) does not parse back: %v", line, s, err)
		}
	})
}
