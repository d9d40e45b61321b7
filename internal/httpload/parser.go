package httpload

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/iobench/iobench/internal/httpbytes"
)

// Parser is a resumable HTTP/1.1 response parser over a read buffer it owns. The caller reads
// into Space, reports the count with Wrote and calls Parse, which consumes what it can and says
// whether the response is complete; when it is not, the caller reads more whenever the socket
// has some, so the same state machine serves a blocking Conn.Do and a non-blocking event loop.
// Responses are parsed in place (header names compared without creating strings, bodies skipped
// or copied into the kept body) and bytes after a response stay buffered for the next one.
// In steady state nothing is allocated.
type Parser struct {
	buf      []byte
	r, w     int   // unread bytes are buf[r:w]
	scanned  int   // bytes after r already known to hold no '\n'
	consumed int64 // bytes consumed since the Parser was made
	grow     bool  // the last read filled the buffer: the next Space may double it

	capture  string // the header whose value is kept in captured ("" for none)
	captured []byte // its value in the current response, reused
	keep     bool   // copy the body into body
	body     []byte // the kept body, reused

	head      bool // the request was HEAD: no body whatever the headers say
	state     state
	h         header
	interim   int   // 1xx responses skipped so far
	total     int   // header bytes so far (or trailer bytes)
	framing   bool  // the previous header line framed the message (for folded lines)
	remaining int64 // body bytes left in a Content-Length body or the current chunk
	start     int64 // consumed when the response began
	resp      Response
}

// state is where the parser is in a response.
type state uint8

const (
	stStatus    state = iota // the status line
	stHeader                 // header lines up to the blank line
	stLength                 // a Content-Length body
	stChunkSize              // a chunk-size line
	stChunkData              // a chunk's data
	stChunkEnd               // the CRLF after a chunk's data
	stTrailer                // trailer lines up to the blank line
	stClose                  // a body delimited by the end of the connection
	stDone                   // the response is complete
)

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

// NewParser returns a Parser whose read buffer starts at size bytes (it grows up to 64 KiB for
// long headers).
func NewParser(size int) *Parser {
	p := &Parser{}
	p.Init(size)
	return p
}

// Init gives a Parser that is a field of something else (the zero Parser) its buffer of size bytes.
func (p *Parser) Init(size int) {
	p.buf = make([]byte, size)
	p.state = stDone
}

// SetKeepBody makes the parser keep each response's body in Response.Body. The buffer grows to
// the largest body seen and is reused; bodies over 64 MiB are an error while keeping.
func (p *Parser) SetKeepBody(keep bool) { p.keep = keep }

// CaptureHeader makes the parser keep the value of the header called name (any case) in
// Response.Header. Only a parser asked to capture looks for it.
func (p *Parser) CaptureHeader(name string) {
	p.capture = name
	if p.captured == nil {
		p.captured = make([]byte, 0, 128)
	}
}

// Begin starts a new response; head says the request was HEAD.
func (p *Parser) Begin(head bool) {
	p.head = head
	p.state = stStatus
	p.interim = 0
	p.start = p.consumed
	p.resp = Response{}
	if p.keep {
		p.body = p.body[:0]
	}
}

// Buffered reports whether bytes not yet parsed are in the buffer.
func (p *Parser) Buffered() bool { return p.r < p.w }

// Space returns the free end of the buffer to read into, compacting or growing the buffer first
// when it is full. It fails when the buffer is full of unparsed bytes at its largest, which only
// a status line, header or chunk-size line longer than 64 KiB causes.
func (p *Parser) Space() ([]byte, error) {
	if p.r == p.w {
		p.r, p.w, p.scanned = 0, 0, 0
	}
	if p.grow && len(p.buf) < maxHeaderBytes {
		p.resize(2 * len(p.buf))
	}
	p.grow = false
	if p.w == len(p.buf) {
		switch {
		case p.r > 0:
			p.w = copy(p.buf, p.buf[p.r:p.w])
			p.r = 0
		case len(p.buf) < maxHeaderBytes:
			p.resize(2 * len(p.buf))
		default:
			return nil, errHeaderTooLarge
		}
	}
	return p.buf[p.w:], nil
}

func (p *Parser) resize(size int) {
	b := make([]byte, min(size, maxHeaderBytes))
	p.w = copy(b, p.buf[p.r:p.w])
	p.r = 0
	p.buf = b
}

// Wrote records that n bytes were read into the slice Space returned. It reports whether they
// filled it: a reader that got less has drained its socket for now.
func (p *Parser) Wrote(n int) (full bool) {
	p.w += n
	p.grow = p.w == len(p.buf)
	return p.grow
}

func (p *Parser) advance(n int) {
	p.r += n
	p.consumed += int64(n)
}

// Parse consumes the buffered bytes of the current response. It returns done when the response
// is complete (Response then describes it), false with a nil error when it needs more bytes.
// Errors are parse errors; the caller classifies them (Fail).
func (p *Parser) Parse() (done bool, err error) {
	for {
		switch p.state {
		case stDone:
			p.finish()
			return true, nil
		case stLength, stChunkData:
			if p.r == p.w {
				return false, nil
			}
			p.take(p.remaining)
		case stClose:
			if err := p.takeAll(); err != nil || p.r == p.w {
				return false, err
			}
		default:
			line, ok := p.line()
			if !ok {
				return false, nil
			}
			if err := p.onLine(line); err != nil {
				return false, err
			}
		}
	}
}

// EOF tells the parser that the connection ended: a body delimited by the close is complete,
// anything else is an error (io.EOF before any byte of the response, else io.ErrUnexpectedEOF).
func (p *Parser) EOF() (done bool, err error) {
	if p.state == stClose {
		p.state = stDone
		return p.Parse()
	}
	if p.state == stDone {
		return true, nil
	}
	if p.consumed == p.start && p.r == p.w {
		return false, fmt.Errorf("connection closed before any response bytes: %w", io.EOF)
	}
	return false, fmt.Errorf("connection closed mid-response, after %d bytes: %w", p.consumed-p.start, io.ErrUnexpectedEOF)
}

// Response is the response parsed so far; complete once Parse returned done. Read counts the
// bytes consumed, also after an error.
func (p *Parser) Response() Response {
	p.resp.Read = p.consumed - p.start
	return p.resp
}

// Leftover returns a Length error when bytes that cannot begin a response follow the one just
// parsed: nothing else was asked for, so they are the rest of a body longer than its framing.
func (p *Parser) Leftover() error {
	if left := p.buf[p.r:p.w]; len(left) > 0 && !startsResponse(left) {
		return &Error{Class: Length, Err: fmt.Errorf("%d byte(s) followed the body its framing declared (body longer than Content-Length)", len(left))}
	}
	return nil
}

// startsResponse reports whether b could be the beginning of a status line ("HTTP/1.").
func startsResponse(b []byte) bool {
	const prefix = "HTTP/1."
	n := min(len(b), len(prefix))
	return string(b[:n]) == prefix[:n]
}

func (p *Parser) finish() {
	if p.keep {
		p.resp.Body = p.body
	}
	if len(p.captured) > 0 {
		p.resp.Header = p.captured
	}
}

// line consumes one buffered line and returns it without its "\n" or "\r\n"; false when no
// full line is buffered yet.
func (p *Parser) line() ([]byte, bool) {
	i := bytes.IndexByte(p.buf[p.r+p.scanned:p.w], '\n')
	if i < 0 {
		p.scanned = p.w - p.r
		return nil, false
	}
	end := p.r + p.scanned + i
	line := p.buf[p.r:end]
	p.advance(end + 1 - p.r)
	p.scanned = 0
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, true
}

// take consumes up to n buffered body bytes, copying them into the kept body.
func (p *Parser) take(n int64) {
	k := min(int64(p.w-p.r), n)
	if p.keep {
		p.body = append(p.body, p.buf[p.r:p.r+int(k)]...)
	}
	p.advance(int(k))
	p.remaining -= k
	if p.remaining > 0 {
		return
	}
	if p.state == stChunkData {
		p.state = stChunkEnd
	} else {
		p.state = stDone
	}
}

// takeAll consumes every buffered byte of a body delimited by the close.
func (p *Parser) takeAll() error {
	k := p.w - p.r
	if p.keep {
		if p.resp.BodyLen+int64(k) > maxKeptBody {
			return errKeptBodyLarge
		}
		p.body = append(p.body, p.buf[p.r:p.w]...)
	}
	p.advance(k)
	p.resp.BodyLen += int64(k)
	return nil
}

// onLine handles one line of the status line, headers, chunk framing or trailers.
func (p *Parser) onLine(line []byte) error {
	switch p.state {
	case stStatus:
		p.h = header{contentLength: -1}
		p.captured = p.captured[:0]
		p.total, p.framing = len(line), false
		p.state = stHeader
		return parseStatusLine(line, &p.h)
	case stHeader:
		return p.onHeader(line)
	case stChunkSize:
		return p.onChunkSize(line)
	case stChunkEnd:
		if len(line) != 0 {
			return errors.New("malformed chunked body: chunk data not followed by CRLF")
		}
		p.state = stChunkSize
		return nil
	}
	// stTrailer
	if len(line) == 0 {
		p.state = stDone
		return nil
	}
	if p.total += len(line) + 2; p.total > maxHeaderBytes {
		return errors.New("response trailers larger than 64 KiB")
	}
	return nil
}

func (p *Parser) onHeader(line []byte) error {
	if p.total += len(line) + 2; p.total > maxHeaderBytes {
		return errHeaderTooLarge
	}
	if len(line) == 0 {
		return p.endHeader()
	}
	if line[0] == ' ' || line[0] == '\t' {
		// Obsolete line folding: harmless on a header we ignore, ambiguous on one we use.
		if p.framing {
			return errors.New("malformed response: folded Content-Length, Transfer-Encoding or Connection header")
		}
		return nil
	}
	last, err := parseHeaderLine(line, &p.h)
	if err != nil {
		return err
	}
	p.framing = last == 1
	if !p.framing && p.capture != "" {
		p.keepHeader(line)
	}
	return nil
}

// endHeader decides, at the blank line, how the body is framed.
func (p *Parser) endHeader() error {
	h := &p.h
	if h.status >= 100 && h.status < 200 && h.status != 101 {
		if p.interim++; p.interim > maxInterim {
			return errTooManyInterim
		}
		p.state = stStatus
		return nil
	}
	p.resp.Status = h.status
	if h.minor == 0 {
		p.resp.KeepAlive = h.connKeepAlive && !h.connClose
	} else {
		p.resp.KeepAlive = !h.connClose
	}
	switch {
	case p.head, h.status == 204, h.status == 304:
		p.state = stDone
	case h.status == 101:
		p.resp.KeepAlive = false // the connection no longer speaks HTTP/1.1
		p.state = stDone
	case h.chunked:
		p.state = stChunkSize
	case h.te, h.contentLength < 0:
		p.resp.KeepAlive = false
		p.state = stClose
	default:
		if p.keep && h.contentLength > maxKeptBody {
			return errKeptBodyLarge
		}
		p.resp.BodyLen, p.remaining = h.contentLength, h.contentLength
		p.state = stLength
		if p.remaining == 0 {
			p.state = stDone
		}
	}
	return nil
}

func (p *Parser) onChunkSize(line []byte) error {
	size, err := parseChunkSize(line)
	if err != nil {
		return err
	}
	if size == 0 {
		p.state, p.total = stTrailer, 0
		return nil
	}
	if p.resp.BodyLen += size; p.resp.BodyLen > maxBodyLen {
		return errors.New("malformed response: chunked body too large")
	}
	if p.keep && int64(len(p.body))+size > maxKeptBody {
		return errKeptBodyLarge
	}
	p.remaining, p.state = size, stChunkData
	return nil
}

// keepHeader appends the value of line to captured when line is the captured header; several
// lines of it are joined with ", " (RFC 9110 §5.3), up to maxCaptured bytes.
func (p *Parser) keepHeader(line []byte) {
	colon := bytes.IndexByte(line, ':') // parseHeaderLine found one
	if !httpbytes.EqualFold(line[:colon], p.capture) {
		return
	}
	if len(p.captured) > 0 {
		p.captured = append(p.captured, ", "...)
	}
	value := httpbytes.TrimOWS(line[colon+1:])
	p.captured = append(p.captured, value[:min(len(value), max(0, maxCaptured-len(p.captured)))]...)
}

// Reset drops every buffered byte and the response in progress, for a new connection.
func (p *Parser) Reset() {
	p.r, p.w, p.scanned, p.grow = 0, 0, 0, false
	p.state = stDone
}

// Head reports whether req is a HEAD request, whose response has no body.
func Head(req []byte) bool { return len(req) >= 5 && string(req[:5]) == "HEAD " }
