package redis

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxBulk bounds a bulk string or array the client accepts (Redis's own proto-max-bulk-len is
// 512 MB).
const maxBulk = 512 << 20

// Error is an error reply of the server ("-ERR ...", "-WRONGTYPE ..."): it fails its command
// only, the connection goes on.
type Error string

func (e Error) Error() string { return string(e) }

// errNil is the reply nil: a missing key (GET), an empty list (RPOP) or a BRPOP that timed out.
var errNil = errors.New("redis: nil reply")

// reply is one RESP2 reply as the client's commands need it.
type reply struct {
	kind byte   // ':' integer, '$' bulk string, '*' array, '+' status; 0 for nil
	n    int64  // an integer's value, an array's length
	bulk []byte // a bulk string (a copy), or an array's last element (BRPOP's message)
}

// appendCommand appends args as a RESP array of bulk strings, the form of every command.
func appendCommand(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// readReply reads one reply. An error reply is returned as an Error with the connection still
// usable; any other error means the stream is broken.
func readReply(br *bufio.Reader) (reply, error) {
	kind, line, err := readLine(br)
	if err != nil {
		return reply{}, err
	}
	switch kind {
	case '+':
		return reply{kind: '+', bulk: bytes.Clone(line)}, nil
	case '-':
		return reply{}, Error(line)
	case ':':
		n, err := parseInt(line)
		return reply{kind: ':', n: n}, err
	case '$':
		return readBulk(br, line)
	case '*':
		return readArray(br, line)
	}
	return reply{}, fmt.Errorf("redis: protocol error: reply starts with %q", kind)
}

// readLine reads a reply's first line: its type byte and the rest without "\r\n". The line is
// only valid until the next read.
func readLine(br *bufio.Reader) (byte, []byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			err = errors.New("redis: protocol error: reply line too long")
		}
		return 0, nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return 0, nil, fmt.Errorf("redis: protocol error: malformed reply line %q", line)
	}
	return line[0], line[1 : len(line)-2], nil
}

// readBulk reads the body of a bulk string whose length line is line; length -1 is nil.
func readBulk(br *bufio.Reader, line []byte) (reply, error) {
	n, err := parseLength(line)
	if err != nil || n < 0 {
		return reply{}, err
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(br, b); err != nil {
		return reply{}, err
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return reply{}, errors.New("redis: protocol error: bulk string without its \\r\\n")
	}
	return reply{kind: '$', bulk: b[:n:n]}, nil
}

// readArray reads an array of bulk strings (BRPOP's key and message) and keeps the last; -1 is
// nil. The client sends no command whose reply nests deeper.
func readArray(br *bufio.Reader, line []byte) (reply, error) {
	n, err := parseLength(line)
	if err != nil || n < 0 {
		return reply{}, err
	}
	r := reply{kind: '*', n: int64(n)}
	for range n {
		kind, line, err := readLine(br)
		if err != nil {
			return reply{}, err
		}
		if kind != '$' {
			return reply{}, fmt.Errorf("redis: protocol error: array element starts with %q, want a bulk string", kind)
		}
		e, err := readBulk(br, line)
		if err != nil {
			return reply{}, err
		}
		r.bulk = e.bulk
	}
	return r, nil
}

// parseLength parses a bulk string's or array's length: -1 (nil) up to maxBulk.
func parseLength(b []byte) (int, error) {
	n, err := parseInt(b)
	if err != nil || n < -1 || n > maxBulk {
		return 0, fmt.Errorf("redis: protocol error: bad length %q", b)
	}
	return int(n), nil
}

// parseInt parses a RESP integer, without allocating below 19 digits.
func parseInt(b []byte) (int64, error) {
	digits := b
	if len(b) > 0 && b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("redis: protocol error: bad integer %q", b)
		}
		return n, nil
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("redis: protocol error: bad integer %q", b)
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(b) {
		n = -n
	}
	return n, nil
}
