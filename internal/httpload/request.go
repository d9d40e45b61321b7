package httpload

import (
	"strconv"
	"strings"
)

// RequestSpec describes the one request a load run repeats. Build turns it into bytes once; the
// engine then writes the same bytes on every Do.
type RequestSpec struct {
	// Method is the request method, "GET" when empty.
	Method string
	// Target is where the request goes.
	Target Target
	// Headers are sent in order after Host and User-Agent. A Host or User-Agent given here replaces
	// the default one; a Content-Length given here is dropped, since Build computes it from Body.
	Headers []Header
	// Body is sent after the headers, with a Content-Length.
	Body []byte
	// Close asks the server to close the connection after the response (Connection: close); the
	// caller then redials for every request, as `ab` without -k does.
	Close bool
}

// Build returns the raw request bytes: the request line, Host (unless the user gave one),
// User-Agent: iobench (unless given), the user's headers, Content-Length when there is a body or
// the method is POST, PUT or PATCH, Connection: close when Close is set, a blank line and the body.
func (s RequestSpec) Build() []byte {
	method := s.Method
	if method == "" {
		method = "GET"
	}
	uri := s.Target.RequestURI
	if uri == "" {
		uri = "/"
	}
	var hasHost, hasUA bool
	for _, h := range s.Headers {
		switch {
		case strings.EqualFold(h.Name, "Host"):
			hasHost = true
		case strings.EqualFold(h.Name, "User-Agent"):
			hasUA = true
		}
	}
	b := make([]byte, 0, 128+len(s.Body))
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, uri...)
	b = append(b, " HTTP/1.1\r\n"...)
	if !hasHost {
		b = appendHeader(b, "Host", s.Target.Host)
	}
	if !hasUA {
		b = appendHeader(b, "User-Agent", "iobench")
	}
	for _, h := range s.Headers {
		if strings.EqualFold(h.Name, "Content-Length") {
			continue
		}
		b = appendHeader(b, h.Name, h.Value)
	}
	switch {
	case len(s.Body) > 0, method == "POST", method == "PUT", method == "PATCH":
		b = appendHeader(b, "Content-Length", strconv.Itoa(len(s.Body)))
	}
	if s.Close {
		b = appendHeader(b, "Connection", "close")
	}
	b = append(b, "\r\n"...)
	return append(b, s.Body...)
}

func appendHeader(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}
