package rawhttp

import (
	"bytes"
	"context"
	"strconv"

	"github.com/iobench/iobench/internal/httpbytes"
)

const (
	// MaxHeaderBytes bounds a request's line and headers; a larger one gets 431.
	MaxHeaderBytes = 16 << 10
	// flushAt is how many response bytes a batch of pipelined requests collects before they are
	// written, so a deep pipeline costs one write per 32 KiB and bounded memory.
	flushAt = 32 << 10
)

// The answers the server gives itself, to requests it refuses. Their bodies are one line saying
// what was wrong; each closes the connection.
var (
	answerBadLine   = errorAnswer(400, "bad request: malformed request line\n")
	answerBadHeader = errorAnswer(400, "bad request: malformed header line\n")
	answerNoHost    = errorAnswer(400, "bad request: HTTP/1.1 requires exactly one Host header\n")
	answerBadLength = errorAnswer(400, "bad request: malformed or conflicting Content-Length\n")
	answerTooLarge  = errorAnswer(431, "request header fields too large: the limit is 16 KiB\n")
	answerChunked   = errorAnswer(501, "not implemented: request bodies must have a Content-Length, not Transfer-Encoding\n")
	answerVersion   = errorAnswer(505, "http version not supported: use HTTP/1.1 or HTTP/1.0\n")
)

func errorAnswer(status int, body string) *Answer { return &Answer{Status: status, Body: []byte(body)} }

const (
	connectionClose     = "Connection: close\r\n"
	connectionKeepAlive = "Connection: keep-alive\r\n"
)

// request is what the server needs of one parsed request.
type request struct {
	Request
	refuse        *Answer // the server's own answer to a request it refuses; nil for the Handler's
	close         bool    // close the connection after the response
	keepAlive10   bool    // an HTTP/1.0 request asked to keep the connection: say yes
	contentLength int64   // body bytes to discard
}

// parseRequest parses the request at the start of b. It returns the bytes consumed by the request
// line and headers (0 while they are incomplete) and, for a request the server must refuse, its
// answer in req.refuse with req.close set. req.Path points into b.
func parseRequest(b []byte) (req request, n int) {
	fail := func(a *Answer) (request, int) { return request{refuse: a, close: true}, len(b) }
	// RFC 9112 §2.2: ignore empty lines before the request line.
	for n < len(b) && (b[n] == '\r' || b[n] == '\n') {
		n++
	}
	line, next := nextLine(b, n)
	if next < 0 || next > MaxHeaderBytes {
		if next > MaxHeaderBytes || len(b) > MaxHeaderBytes {
			return fail(answerTooLarge)
		}
		return request{}, 0 // incomplete
	}
	var minor int
	var ok bool
	if req.Request, minor, ok = parseRequestLine(line); !ok {
		return fail(answerBadLine)
	}
	if minor < 0 {
		return fail(answerVersion)
	}
	var hosts int
	var connClose, connKeepAlive, te bool
	cl := int64(-1)
	for {
		line, next = nextLine(b, next)
		if next < 0 || next > MaxHeaderBytes {
			if next > MaxHeaderBytes || len(b) > MaxHeaderBytes {
				return fail(answerTooLarge)
			}
			return request{}, 0 // incomplete
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !httpbytes.IsToken(line[:colon]) {
			return fail(answerBadHeader) // also rejects obsolete line folding
		}
		name, value := line[:colon], httpbytes.TrimOWS(line[colon+1:])
		switch {
		case httpbytes.EqualFold(name, "Host"):
			hosts++
		case httpbytes.EqualFold(name, "Content-Length"):
			v, ok := parseDecimal(value)
			if !ok || (cl >= 0 && cl != v) {
				return fail(answerBadLength)
			}
			cl = v
		case httpbytes.EqualFold(name, "Transfer-Encoding"):
			te = true
		case httpbytes.EqualFold(name, "Connection"):
			httpbytes.ForTokens(value, func(tok []byte) {
				if httpbytes.EqualFold(tok, "close") {
					connClose = true
				} else if httpbytes.EqualFold(tok, "keep-alive") {
					connKeepAlive = true
				}
			})
		}
	}
	switch {
	case te:
		return fail(answerChunked)
	case minor >= 1 && hosts != 1, hosts > 1:
		return fail(answerNoHost)
	}
	req.contentLength = max(cl, 0)
	if minor == 0 {
		req.close = connClose || !connKeepAlive
		req.keepAlive10 = !req.close
	} else {
		req.close = connClose
	}
	return req, next
}

// parseRequestLine parses "METHOD target HTTP/1.x". minor is -1 for a version other than 1.x.
func parseRequestLine(line []byte) (req Request, minor int, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || !httpbytes.IsToken(line[:sp]) {
		return req, 0, false
	}
	method, rest := line[:sp], line[sp+1:]
	sp = bytes.IndexByte(rest, ' ')
	if sp <= 0 {
		return req, 0, false
	}
	target, version := rest[:sp], rest[sp+1:]
	for _, c := range target {
		if c <= ' ' || c == 0x7f {
			return req, 0, false
		}
	}
	if len(version) != 8 || string(version[:5]) != "HTTP/" || !httpbytes.IsDigit(version[5]) || version[6] != '.' || !httpbytes.IsDigit(version[7]) {
		return req, 0, false
	}
	minor = -1
	if version[5] == '1' {
		minor = int(version[7] - '0')
	}
	switch string(method) {
	case "GET":
		req.Method = MethodGet
	case "HEAD":
		req.Method = MethodHead
	}
	req.Path = routePath(target)
	return req, minor, true
}

// slash is the path of an absolute-form target without one.
var slash = []byte("/")

// routePath returns the path of an origin-form ("/p?q") or absolute-form ("http://h/p?q") target:
// a part of target, without its query.
func routePath(target []byte) []byte {
	if len(target) > 7 && httpbytes.EqualFold(target[:7], "http://") {
		target = target[7:]
		i := bytes.IndexByte(target, '/')
		if i < 0 {
			return slash
		}
		target = target[i:]
	}
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		target = target[:i]
	}
	return target
}

// nextLine returns the line starting at b[from:] without its "\n" or "\r\n", and the offset
// after it; next is -1 when the line is not complete yet.
func nextLine(b []byte, from int) (line []byte, next int) {
	i := bytes.IndexByte(b[from:], '\n')
	if i < 0 {
		return nil, -1
	}
	line = b[from : from+i]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, from + i + 1
}

// session is one connection's request state, free of I/O so that tests and fuzzing drive it
// directly.
type session struct {
	ctx     context.Context
	handler Handler
	answer  Answer // the Handler's, its body's buffer reused
	discard int64  // body bytes of the last request still to skip
}

// process parses the complete requests at the start of in and appends their responses to out,
// up to flushAt bytes of responses. It returns the bytes it consumed and whether the connection
// must close once out is written.
func (s *session) process(in, out, date []byte) (n int, _ []byte, closeAfter bool) {
	for len(out) < flushAt {
		if s.discard > 0 {
			k := min(s.discard, int64(len(in)-n))
			n += int(k)
			if s.discard -= k; s.discard > 0 {
				return n, out, false
			}
		}
		if n == len(in) {
			return n, out, false
		}
		req, k := parseRequest(in[n:])
		if k == 0 {
			return n, out, false
		}
		n += k
		s.discard = req.contentLength
		a := req.refuse
		if a == nil {
			s.answer = Answer{Body: s.answer.Body[:0]}
			s.handler(s.ctx, req.Request, &s.answer)
			a = &s.answer
		}
		out = appendAnswer(out, &req, a, date)
		if req.close {
			return n, out, true
		}
	}
	return n, out, false
}

// appendAnswer appends the response a to req: status line, Server, Date, Content-Type,
// Content-Length, a's own header lines, Connection when it must be said, and the body unless
// req is a HEAD.
func appendAnswer(out []byte, req *request, a *Answer, date []byte) []byte {
	out = append(out, statusLine(a.Status)...)
	out = append(out, date...)
	out = append(out, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: "...)
	out = strconv.AppendInt(out, int64(len(a.Body)), 10)
	out = append(out, "\r\n"...)
	out = append(out, a.Header...)
	switch {
	case req.close:
		out = append(out, connectionClose...)
	case req.keepAlive10:
		out = append(out, connectionKeepAlive...)
	}
	out = append(out, "\r\n"...)
	if req.Method != MethodHead {
		out = append(out, a.Body...)
	}
	return out
}
