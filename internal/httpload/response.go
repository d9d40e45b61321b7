package httpload

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/iobench/iobench/internal/httpbytes"
)

const (
	// initialBufSize is a new Conn's read buffer: one small response fits, and 10,000 connections
	// cost 40 MiB.
	initialBufSize = 4 << 10
	// maxHeaderBytes bounds a response's status line and headers (and a chunked body's trailers);
	// it is also the largest the read buffer grows to.
	maxHeaderBytes = 64 << 10
	// maxKeptBody bounds the body kept for SetKeepBody, so a server streaming forever cannot
	// exhaust memory before the deadline.
	maxKeptBody = 64 << 20
	// maxInterim bounds the 1xx interim responses skipped before the final one.
	maxInterim = 16
	// maxBodyLen keeps Content-Length and chunk-size arithmetic far from overflow.
	maxBodyLen = 1 << 62
	// maxCaptured bounds the captured header's value (CaptureHeader); the rest is dropped.
	maxCaptured = 1 << 10
)

// Response is what Do learned about one response. Nothing in it is allocated per call.
type Response struct {
	// Status is the final status code (1xx interim responses are skipped).
	Status int
	// BodyLen is the length of the body, after chunked decoding.
	BodyLen int64
	// Read counts the bytes of this response taken off the socket, status line, headers, chunk
	// framing, trailers and skipped 1xx responses included. On error it counts what was consumed
	// before the failure.
	Read int64
	// KeepAlive is false when the connection cannot carry another request: the server sent
	// Connection: close, answered HTTP/1.0 without Connection: keep-alive, delimited the body by
	// closing, or switched protocols (101).
	KeepAlive bool
	// Body is the body when the Conn keeps bodies (SetKeepBody); it is valid until the next Do.
	Body []byte
	// Header is the value of the header the Conn captures (CaptureHeader), its lines joined with
	// ", "; nil when the response had none or nothing is captured. Valid until the next Do.
	Header []byte
}

// KeepBody appends data to a body kept for checking (--expect-body), as a Conn that keeps bodies
// does: an error when the body would grow beyond the 64 MiB kept. HTTP/2's streams, whose DATA
// frames the engine reads itself, keep theirs with it.
func KeepBody(body, data []byte) ([]byte, error) {
	if len(body)+len(data) > maxKeptBody {
		return body, errKeptBodyLarge
	}
	return append(body, data...), nil
}

var (
	errHeaderTooLarge = errors.New("response header larger than 64 KiB")
	errTooManyInterim = errors.New("more than 16 interim (1xx) responses")
	errKeptBodyLarge  = errors.New("body larger than 64 MiB cannot be kept for checking")
)

func parseStatusLine(line []byte, h *header) error {
	// "HTTP/1.1 200 OK", the reason phrase optional.
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || !httpbytes.IsDigit(line[7]) || line[8] != ' ' ||
		!httpbytes.IsDigit(line[9]) || !httpbytes.IsDigit(line[10]) || !httpbytes.IsDigit(line[11]) || (len(line) > 12 && line[12] != ' ') {
		return fmt.Errorf("malformed status line %q (want \"HTTP/1.1 200 OK\")", clip(line))
	}
	h.minor = int(line[7] - '0')
	h.status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	if h.status < 100 {
		return fmt.Errorf("malformed status line %q: status below 100", clip(line))
	}
	return nil
}

// parseHeaderLine records the headers that frame the message; it returns 1 when line was one.
func parseHeaderLine(line []byte, h *header) (int, error) {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return 0, fmt.Errorf("malformed header line %q", clip(line))
	}
	name, value := line[:colon], httpbytes.TrimOWS(line[colon+1:])
	for _, c := range name {
		if !httpbytes.IsTchar(c) {
			return 0, fmt.Errorf("malformed header name %q", clip(name))
		}
	}
	switch {
	case httpbytes.EqualFold(name, "Content-Length"):
		n, ok := parseDecimal(value)
		if !ok {
			return 0, fmt.Errorf("malformed Content-Length %q", clip(value))
		}
		if h.contentLength >= 0 && h.contentLength != n {
			return 0, errors.New("malformed response: conflicting Content-Length headers")
		}
		h.contentLength = n
	case httpbytes.EqualFold(name, "Transfer-Encoding"):
		h.te = true
		h.chunked = false
		httpbytes.ForTokens(value, func(tok []byte) { h.chunked = httpbytes.EqualFold(tok, "chunked") })
	case httpbytes.EqualFold(name, "Connection"):
		httpbytes.ForTokens(value, func(tok []byte) {
			switch {
			case httpbytes.EqualFold(tok, "close"):
				h.connClose = true
			case httpbytes.EqualFold(tok, "keep-alive"):
				h.connKeepAlive = true
			}
		})
	default:
		return 0, nil
	}
	return 1, nil
}

// parseChunkSize parses "1a3f", "1a3f;ext=1" or "1a3f  " into the chunk's size.
func parseChunkSize(line []byte) (int64, error) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = httpbytes.TrimOWS(line)
	if len(line) == 0 {
		return 0, errors.New("malformed chunked body: empty chunk size")
	}
	var n int64
	for _, c := range line {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, fmt.Errorf("malformed chunk size %q", clip(line))
		}
		if n > maxBodyLen>>4 {
			return 0, fmt.Errorf("malformed chunk size %q: too large", clip(line))
		}
		n = n<<4 | int64(d)
	}
	return n, nil
}
