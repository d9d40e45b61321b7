package h2wire

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/http2/hpack"
)

// Request is an HTTP/2 request as a run sends it over and over: its header block, encoded once
// without the dynamic table (so the same bytes serve every request on every connection), and its
// body.
type Request struct {
	Block []byte
	Body  []byte
	Head  bool // a HEAD request: the response has no body
}

// connectionHeaders are HTTP/1.1 headers HTTP/2 forbids (RFC 9113 §8.2.2); Host becomes
// :authority.
var connectionHeaders = []string{"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"}

// FromHTTP1 translates a run's HTTP/1.1 request (as httpload builds it) into HTTP/2: the request
// line and Host become pseudo-headers, names are lower-cased, and the headers HTTP/2 forbids are
// dropped. scheme is "http" or "https".
func FromHTTP1(raw []byte, scheme string) (Request, error) {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return Request{}, errors.New("request without the blank line after its headers")
	}
	lines := strings.Split(string(raw[:end]), "\r\n")
	parts := strings.SplitN(lines[0], " ", 3)
	if len(parts) != 3 {
		return Request{}, fmt.Errorf("malformed request line %q", lines[0])
	}
	var fields []hpack.HeaderField
	authority := ""
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			return Request{}, fmt.Errorf("malformed header line %q", l)
		}
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if name == "host" {
			authority = value
		}
		if !contains(connectionHeaders, name) {
			fields = append(fields, hpack.HeaderField{Name: name, Value: value})
		}
	}
	pseudo := []hpack.HeaderField{{Name: ":method", Value: parts[0]}, {Name: ":scheme", Value: scheme}, {Name: ":authority", Value: authority}, {Name: ":path", Value: parts[1]}}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range append(pseudo, fields...) {
		f.Sensitive = true // never indexed: the block leaves the dynamic table empty, so it can be resent as is
		if err := enc.WriteField(f); err != nil {
			return Request{}, err
		}
	}
	return Request{Block: block.Bytes(), Body: raw[end+4:], Head: parts[0] == "HEAD"}, nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// staticStatus is the :status of the static table's entries 8 to 14 (RFC 7541 Appendix A).
var staticStatus = [...]int{200, 204, 206, 304, 400, 404, 500}

// StatusDecoder decodes the header blocks of one connection's responses, keeping its dynamic
// table, and returns their :status. A block that begins with an indexed :status from the static
// table (a server's usual first byte, 0x88 for 200) is decoded with emitting off, so no string is
// made and nothing is allocated unless the server adds to the dynamic table; any other block is
// decoded in full.
type StatusDecoder struct {
	d      *hpack.Decoder
	status int
	err    error
}

// NewStatusDecoder returns a decoder with the default 4,096-byte dynamic table.
func NewStatusDecoder() *StatusDecoder {
	s := &StatusDecoder{}
	s.d = hpack.NewDecoder(4096, s.emit)
	s.d.SetMaxStringLength(64 << 10)
	return s
}

func (s *StatusDecoder) emit(f hpack.HeaderField) {
	if f.Name != ":status" || s.status != 0 {
		return
	}
	n, err := strconv.Atoi(f.Value)
	if err != nil || n < 100 || n > 999 {
		s.err = fmt.Errorf("malformed :status %q", f.Value)
		return
	}
	s.status = n
}

// Decode decodes one complete header block and returns its :status, 0 when it has none (as
// trailers have not).
func (s *StatusDecoder) Decode(block []byte) (int, error) {
	s.status, s.err = 0, nil
	quick := len(block) > 0 && block[0] >= 0x88 && block[0] <= 0x8e
	if quick {
		s.status = staticStatus[block[0]-0x88]
	}
	s.d.SetEmitEnabled(!quick)
	if _, err := s.d.Write(block); err != nil {
		return 0, err
	}
	if err := s.d.Close(); err != nil {
		return 0, err
	}
	return s.status, s.err
}
