package httpload

import (
	"bytes"
	"errors"
	"fmt"
	"io"

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

var (
	errHeaderTooLarge = errors.New("response header larger than 64 KiB")
	errTooManyInterim = errors.New("more than 16 interim (1xx) responses")
	errKeptBodyLarge  = errors.New("body larger than 64 MiB cannot be kept for checking")
)

// reader is a growable read buffer over src in which responses are parsed in place: lines are
// slices of buf, header names are compared without creating strings, bodies are skipped (or copied
// into the kept body). Bytes after a response stay in buf for the next one.
type reader struct {
	src      io.Reader
	buf      []byte
	r, w     int    // unread bytes are buf[r:w]
	consumed int64  // bytes consumed since the reader was made
	grow     bool   // the last read filled the buffer: the next fill may double it
	err      error  // sticky error from src
	capture  string // the header whose value is kept in captured ("" for none)
	captured []byte // its value in the last response, reused
}

func newReader(src io.Reader, size int) reader {
	return reader{src: src, buf: make([]byte, size)}
}

func (rd *reader) advance(n int) {
	rd.r += n
	rd.consumed += int64(n)
}

// fill reads at least one more byte into the buffer, compacting or growing it first when it is
// full. It fails with errHeaderTooLarge when the buffer is full of unconsumed bytes at its
// largest, which only the header and line parsers let happen.
func (rd *reader) fill() error {
	if rd.err != nil {
		return rd.err
	}
	if rd.r == rd.w {
		rd.r, rd.w = 0, 0
	}
	if rd.grow && len(rd.buf) < maxHeaderBytes {
		rd.resize(2 * len(rd.buf))
	}
	rd.grow = false
	if rd.w == len(rd.buf) {
		switch {
		case rd.r > 0:
			rd.w = copy(rd.buf, rd.buf[rd.r:rd.w])
			rd.r = 0
		case len(rd.buf) < maxHeaderBytes:
			rd.resize(2 * len(rd.buf))
		default:
			return errHeaderTooLarge
		}
	}
	for range 100 {
		n, err := rd.src.Read(rd.buf[rd.w:])
		if n < 0 || n > len(rd.buf)-rd.w {
			n = 0
			err = errors.New("invalid read count from the connection")
		}
		rd.w += n
		rd.grow = rd.w == len(rd.buf)
		if err != nil {
			rd.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	rd.err = io.ErrNoProgress
	return rd.err
}

func (rd *reader) resize(size int) {
	size = min(size, maxHeaderBytes)
	b := make([]byte, size)
	rd.w = copy(b, rd.buf[rd.r:rd.w])
	rd.r = 0
	rd.buf = b
}

// readLine consumes one line and returns it without its "\n" or "\r\n". The line is a slice of the
// buffer, valid until the next fill.
func (rd *reader) readLine() ([]byte, error) {
	scanned := 0 // bytes after r already known to hold no '\n'
	for {
		if i := bytes.IndexByte(rd.buf[rd.r+scanned:rd.w], '\n'); i >= 0 {
			end := rd.r + scanned + i
			line := rd.buf[rd.r:end]
			rd.advance(end + 1 - rd.r)
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		}
		scanned = rd.w - rd.r
		if err := rd.fill(); err != nil {
			return nil, err
		}
	}
}

// header is what the parser keeps of a response's status line and headers.
type header struct {
	status        int
	minor         int   // HTTP/1.minor
	contentLength int64 // -1 when absent
	te            bool  // a Transfer-Encoding header was present
	chunked       bool  // its last coding is chunked
	connClose     bool
	connKeepAlive bool
}

// readResponse reads one full response. head says the request was HEAD (no body whatever the
// headers say). When keep is true the body is copied into *body, reusing its capacity.
func (rd *reader) readResponse(head, keep bool, body *[]byte) (Response, error) {
	start := rd.consumed
	resp, err := rd.readResponseBody(head, keep, body)
	resp.Read = rd.consumed - start
	if err != nil {
		return resp, rd.responseError(err, resp.Read)
	}
	return resp, nil
}

func (rd *reader) readResponseBody(head, keep bool, body *[]byte) (Response, error) {
	var h header
	for interim := 0; ; interim++ {
		if err := rd.readHeader(&h); err != nil {
			return Response{}, err
		}
		if h.status < 100 || h.status >= 200 || h.status == 101 {
			break
		}
		if interim == maxInterim {
			return Response{}, errTooManyInterim
		}
	}
	resp := Response{Status: h.status}
	if h.minor == 0 {
		resp.KeepAlive = h.connKeepAlive && !h.connClose
	} else {
		resp.KeepAlive = !h.connClose
	}
	if keep {
		*body = (*body)[:0]
	}
	var err error
	switch {
	case head, h.status == 204, h.status == 304:
	case h.status == 101:
		resp.KeepAlive = false // the connection no longer speaks HTTP/1.1
	case h.chunked:
		resp.BodyLen, err = rd.readChunked(keep, body)
	case h.te, h.contentLength < 0:
		resp.KeepAlive = false
		resp.BodyLen, err = rd.readUntilClose(keep, body)
	default:
		resp.BodyLen = h.contentLength
		err = rd.skip(h.contentLength, keep, body)
	}
	if keep {
		resp.Body = *body
	}
	if len(rd.captured) > 0 {
		resp.Header = rd.captured
	}
	return resp, err
}

// responseError turns a parse or I/O error into a Read or Timeout *Error with a clear message.
func (rd *reader) responseError(err error, n int64) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case isTimeout(err):
		return &Error{Class: Timeout, Err: err}
	case err == io.EOF && n == 0 && rd.r == rd.w:
		return &Error{Class: Read, Err: fmt.Errorf("connection closed before any response bytes: %w", io.EOF)}
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &Error{Class: Read, Err: fmt.Errorf("connection closed mid-response, after %d bytes: %w", n, io.ErrUnexpectedEOF)}
	}
	return &Error{Class: Read, Err: err}
}

// readHeader parses the status line and the headers up to the blank line.
func (rd *reader) readHeader(h *header) error {
	*h = header{contentLength: -1}
	rd.captured = rd.captured[:0]
	line, err := rd.readLine()
	if err != nil {
		return err
	}
	total := len(line)
	if err := parseStatusLine(line, h); err != nil {
		return err
	}
	last := 0 // 1 when the previous header was one that frames the message
	for {
		line, err := rd.readLine()
		if err != nil {
			return err
		}
		if total += len(line) + 2; total > maxHeaderBytes {
			return errHeaderTooLarge
		}
		if len(line) == 0 {
			return nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			// Obsolete line folding: harmless on a header we ignore, ambiguous on one we use.
			if last == 1 {
				return errors.New("malformed response: folded Content-Length, Transfer-Encoding or Connection header")
			}
			continue
		}
		if last, err = parseHeaderLine(line, h); err != nil {
			return err
		}
		if last == 0 && rd.capture != "" {
			rd.keepHeader(line)
		}
	}
}

// keepHeader appends the value of line to captured when line is the captured header; several
// lines of it are joined with ", " (RFC 9110 §5.3), up to maxCaptured bytes.
func (rd *reader) keepHeader(line []byte) {
	colon := bytes.IndexByte(line, ':') // parseHeaderLine found one
	if !httpbytes.EqualFold(line[:colon], rd.capture) {
		return
	}
	if len(rd.captured) > 0 {
		rd.captured = append(rd.captured, ", "...)
	}
	value := httpbytes.TrimOWS(line[colon+1:])
	rd.captured = append(rd.captured, value[:min(len(value), max(0, maxCaptured-len(rd.captured)))]...)
}

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

// skip consumes n body bytes, copying them into *body when keep is set.
func (rd *reader) skip(n int64, keep bool, body *[]byte) error {
	if keep && n > maxKeptBody {
		return errKeptBodyLarge
	}
	for n > 0 {
		if rd.r == rd.w {
			if err := rd.fill(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
		}
		k := min(int64(rd.w-rd.r), n)
		if keep {
			*body = append(*body, rd.buf[rd.r:rd.r+int(k)]...)
		}
		rd.advance(int(k))
		n -= k
	}
	return nil
}

// readUntilClose consumes a body delimited by the end of the connection.
func (rd *reader) readUntilClose(keep bool, body *[]byte) (int64, error) {
	var n int64
	for {
		if k := rd.w - rd.r; k > 0 {
			if keep {
				if n+int64(k) > maxKeptBody {
					return n, errKeptBodyLarge
				}
				*body = append(*body, rd.buf[rd.r:rd.w]...)
			}
			rd.advance(k)
			n += int64(k)
		}
		if err := rd.fill(); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
	}
}

// readChunked consumes a chunked body and its trailers and returns the decoded length.
func (rd *reader) readChunked(keep bool, body *[]byte) (int64, error) {
	var total int64
	for {
		line, err := rd.readLine()
		if err != nil {
			return total, err
		}
		size, err := parseChunkSize(line)
		if err != nil {
			return total, err
		}
		if size == 0 {
			break
		}
		if total += size; total > maxBodyLen {
			return total, errors.New("malformed response: chunked body too large")
		}
		if keep && int64(len(*body))+size > maxKeptBody {
			return total, errKeptBodyLarge
		}
		if err := rd.skip(size, keep, body); err != nil {
			return total, err
		}
		line, err = rd.readLine()
		if err != nil {
			return total, err
		}
		if len(line) != 0 {
			return total, errors.New("malformed chunked body: chunk data not followed by CRLF")
		}
	}
	trailers := 0
	for {
		line, err := rd.readLine()
		if err != nil {
			return total, err
		}
		if len(line) == 0 {
			return total, nil
		}
		if trailers += len(line) + 2; trailers > maxHeaderBytes {
			return total, errors.New("response trailers larger than 64 KiB")
		}
	}
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
