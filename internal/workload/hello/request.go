package hello

import (
	"bytes"
	"strconv"

	"github.com/iobench/iobench/internal/httpbytes"
)

const (
	// maxHeaderBytes bounds a request's line and headers; a larger one gets 431.
	maxHeaderBytes = 16 << 10
	// flushAt is how many response bytes a batch of pipelined requests collects before they are
	// written, so a deep pipeline costs one write per 32 KiB and bounded memory.
	flushAt = 32 << 10
)

// reply is a canned response: everything but the Date and Connection headers is fixed.
type reply struct {
	first string // status line and Server header
	rest  string // Content-Type, Content-Length and any other fixed headers
	body  string
}

func newReply(status int, reason, body, extra string) *reply {
	return &reply{
		first: "HTTP/1.1 " + strconv.Itoa(status) + " " + reason + "\r\nServer: iobench\r\n",
		rest: "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n" +
			extra,
		body: body,
	}
}

// The replies. Error bodies are one line saying what was wrong.
var (
	replyHello      = newReply(200, "OK", Body, "")
	replyNotFound   = newReply(404, "Not Found", "not found: iobench hello serves only GET /\n", "")
	replyNotAllowed = newReply(405, "Method Not Allowed", "method not allowed: use GET or HEAD\n", "Allow: GET, HEAD\r\n")
	replyBadLine    = newReply(400, "Bad Request", "bad request: malformed request line\n", "")
	replyBadHeader  = newReply(400, "Bad Request", "bad request: malformed header line\n", "")
	replyNoHost     = newReply(400, "Bad Request", "bad request: HTTP/1.1 requires exactly one Host header\n", "")
	replyBadLength  = newReply(400, "Bad Request", "bad request: malformed or conflicting Content-Length\n", "")
	replyTooLarge   = newReply(431, "Request Header Fields Too Large", "request header fields too large: the limit is 16 KiB\n", "")
	replyChunked    = newReply(501, "Not Implemented", "not implemented: request bodies must have a Content-Length, not Transfer-Encoding\n", "")
	replyVersion    = newReply(505, "HTTP Version Not Supported", "http version not supported: use HTTP/1.1 or HTTP/1.0\n", "")
)

const (
	connectionClose     = "Connection: close\r\n"
	connectionKeepAlive = "Connection: keep-alive\r\n"
)

// request is what the server needs of one parsed request.
type request struct {
	reply         *reply
	head          bool  // HEAD: headers only
	close         bool  // close the connection after the response
	keepAlive10   bool  // an HTTP/1.0 request asked to keep the connection: say yes
	contentLength int64 // body bytes to discard
}

// parseRequest parses the request at the start of b. It returns the bytes consumed by the request
// line and headers (0 while they are incomplete) and, for a request the server must refuse, the
// error reply in req.reply with req.close set.
func parseRequest(b []byte) (req request, n int) {
	fail := func(r *reply) (request, int) { return request{reply: r, close: true}, len(b) }
	// RFC 9112 §2.2: ignore empty lines before the request line.
	for n < len(b) && (b[n] == '\r' || b[n] == '\n') {
		n++
	}
	line, next := nextLine(b, n)
	if next < 0 || next > maxHeaderBytes {
		if next > maxHeaderBytes || len(b) > maxHeaderBytes {
			return fail(replyTooLarge)
		}
		return request{}, 0 // incomplete
	}
	var (
		minor                int
		isGet, isHead, isTop bool
		ok                   bool
	)
	if isGet, isHead, isTop, minor, ok = parseRequestLine(line); !ok {
		return fail(replyBadLine)
	}
	if minor < 0 {
		return fail(replyVersion)
	}
	var hosts int
	var connClose, connKeepAlive, te bool
	cl := int64(-1)
	for {
		line, next = nextLine(b, next)
		if next < 0 || next > maxHeaderBytes {
			if next > maxHeaderBytes || len(b) > maxHeaderBytes {
				return fail(replyTooLarge)
			}
			return request{}, 0 // incomplete
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !httpbytes.IsToken(line[:colon]) {
			return fail(replyBadHeader) // also rejects obsolete line folding
		}
		name, value := line[:colon], httpbytes.TrimOWS(line[colon+1:])
		switch {
		case httpbytes.EqualFold(name, "Host"):
			hosts++
		case httpbytes.EqualFold(name, "Content-Length"):
			v, ok := parseDecimal(value)
			if !ok || (cl >= 0 && cl != v) {
				return fail(replyBadLength)
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
		return fail(replyChunked)
	case minor >= 1 && hosts != 1, hosts > 1:
		return fail(replyNoHost)
	}
	req.contentLength = max(cl, 0)
	req.head = isHead
	if minor == 0 {
		req.close = connClose || !connKeepAlive
		req.keepAlive10 = !req.close
	} else {
		req.close = connClose
	}
	switch {
	case !isTop:
		req.reply = replyNotFound
	case !isGet && !isHead:
		req.reply = replyNotAllowed
	default:
		req.reply = replyHello
	}
	return req, next
}

// parseRequestLine parses "METHOD target HTTP/1.x". minor is -1 for a version other than 1.x.
func parseRequestLine(line []byte) (isGet, isHead, isTop bool, minor int, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || !httpbytes.IsToken(line[:sp]) {
		return false, false, false, 0, false
	}
	method, rest := line[:sp], line[sp+1:]
	sp = bytes.IndexByte(rest, ' ')
	if sp <= 0 {
		return false, false, false, 0, false
	}
	target, version := rest[:sp], rest[sp+1:]
	for _, c := range target {
		if c <= ' ' || c == 0x7f {
			return false, false, false, 0, false
		}
	}
	if len(version) != 8 || string(version[:5]) != "HTTP/" || !httpbytes.IsDigit(version[5]) || version[6] != '.' || !httpbytes.IsDigit(version[7]) {
		return false, false, false, 0, false
	}
	minor = -1
	if version[5] == '1' {
		minor = int(version[7] - '0')
	}
	return string(method) == "GET", string(method) == "HEAD", routePath(target) == "/", minor, true
}

// routePath returns the path of an origin-form ("/p?q") or absolute-form ("http://h/p?q") target,
// as a string that the caller only compares (no allocation).
func routePath(target []byte) string {
	if len(target) > 7 && httpbytes.EqualFold(target[:7], "http://") {
		target = target[7:]
		i := bytes.IndexByte(target, '/')
		if i < 0 {
			return "/"
		}
		target = target[i:]
	}
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		target = target[:i]
	}
	if string(target) == "/" {
		return "/"
	}
	return "other"
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
	discard int64 // body bytes of the last request still to skip
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
		out = appendReply(out, &req, date)
		if req.close {
			return n, out, true
		}
	}
	return n, out, false
}

func appendReply(out []byte, req *request, date []byte) []byte {
	r := req.reply
	out = append(out, r.first...)
	out = append(out, date...)
	out = append(out, r.rest...)
	switch {
	case req.close:
		out = append(out, connectionClose...)
	case req.keepAlive10:
		out = append(out, connectionKeepAlive...)
	}
	out = append(out, "\r\n"...)
	if !req.head {
		out = append(out, r.body...)
	}
	return out
}
