package httpload

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/iobench/iobench/internal/httpbytes"
)

// Target is a parsed http:// or https:// URL, split into what a client needs on the wire.
type Target struct {
	// Addr is the host:port to dial; the port defaults to 80, or 443 for https.
	Addr string
	// Host is the Host header value: the URL's host, with its port if the URL gave one.
	Host string
	// RequestURI is the request target, path?query, "/" when the URL has no path.
	RequestURI string
	// TLS is set for an https:// URL: each connection runs a TLS handshake (DialTLS) before its
	// first request.
	TLS bool
}

// URL returns the target as a URL again: scheme, Host and RequestURI (a fragment or a default
// port written out in the original are not kept).
func (t Target) URL() string {
	scheme := "http://"
	if t.TLS {
		scheme = "https://"
	}
	return scheme + t.Host + t.RequestURI
}

// ServerName returns the host of Addr without its port or brackets: the name a TLS client
// sends as SNI and checks the server's certificate against.
func (t Target) ServerName() string {
	host, _, err := net.SplitHostPort(t.Addr)
	if err != nil {
		return t.Addr
	}
	return host
}

// ParseURL parses an http:// or https:// URL into a Target. A missing scheme or host, another
// scheme, user info, a bad port or characters that cannot go on a request line are one-line
// errors with a hint. A fragment is dropped, as browsers and curl do.
func ParseURL(raw string) (Target, error) {
	const hint = "; try http://127.0.0.1:8080/path"
	fail := func(format string, args ...any) (Target, error) {
		return Target{}, fmt.Errorf("url %q: "+format+hint, append([]any{raw}, args...)...)
	}
	if strings.TrimSpace(raw) == "" {
		return fail("empty URL")
	}
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok {
		return fail("missing scheme")
	}
	port := "80"
	switch strings.ToLower(scheme) {
	case "http":
	case "https":
		port = "443"
	default:
		return fail("scheme %q is not supported, only http and https", scheme)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail("%v", err)
	}
	if u.User != nil {
		return fail("user info is not supported (send an Authorization header instead)")
	}
	host := u.Hostname()
	if host == "" {
		return fail("missing host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fail("port %q is not in 1-65535", p)
		}
		port = p
	}
	hostHeader := u.Host
	if strings.HasSuffix(hostHeader, ":") { // "http://h:/" means the default port
		hostHeader = strings.TrimSuffix(hostHeader, ":")
	}
	if !validHeaderValue(hostHeader) {
		return fail("host contains characters not allowed in a Host header")
	}
	uri := u.RequestURI()
	if uri == "" || uri[0] != '/' {
		return fail("the path must start with /")
	}
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c == 0x7f {
			return fail("path or query contains a space or control character (percent-encode it, e.g. %%20)")
		}
	}
	return Target{Addr: net.JoinHostPort(host, port), Host: hostHeader, RequestURI: uri, TLS: strings.EqualFold(scheme, "https")}, nil
}

// Header is one request header field, sent as given.
type Header struct{ Name, Value string }

// ParseHeader parses a "Name: value" header as given on the command line. The name must be an HTTP
// token; the value is trimmed of surrounding blanks and may not contain CR, LF or NUL.
func ParseHeader(s string) (Header, error) {
	const hint = `; use "Name: value", e.g. "Accept: text/plain"`
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return Header{}, fmt.Errorf("header %q: missing ':'%s", s, hint)
	}
	if name == "" {
		return Header{}, fmt.Errorf("header %q: empty name%s", s, hint)
	}
	if !httpbytes.IsToken(name) {
		return Header{}, fmt.Errorf("header %q: name %q has characters not allowed in a header name (no spaces or separators)%s", s, name, hint)
	}
	value = strings.Trim(value, " \t")
	if !validHeaderValue(value) {
		return Header{}, fmt.Errorf("header %q: value contains a control character (CR, LF or NUL)%s", s, hint)
	}
	return Header{Name: name, Value: value}, nil
}

// validHeaderValue rejects the characters that would break or smuggle a header line; other
// control characters except tab are rejected too, since no server expects them.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
