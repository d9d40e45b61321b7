package h2wire

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/http2/hpack"
)

// Request is an HTTP/2 request as a run sends it over and over, its header block encoded once
// three ways: Block never indexed (it leaves the server's HPACK table as it is, so it serves any
// stream of any connection), First with incremental indexing (a connection's first stream: it
// adds the fields to the server's table, Table bytes of it) and Next, which refers to those
// entries (every later stream: the server decodes a few indices instead of literals, Huffman-
// coded, again and again). First and Next are Block when the fields would not fit the default
// 4,096-byte table.
type Request struct {
	Block, First, Next []byte
	Table              uint32
	Body               []byte
	Head               bool // a HEAD request: the response has no body
}

// defaultTable is the size of the server's HPACK table until its SETTINGS_HEADER_TABLE_SIZE.
const defaultTable = 4096

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
	fields = append(pseudo, fields...)
	req := Request{Body: raw[end+4:], Head: parts[0] == "HEAD"}
	var buf bytes.Buffer
	var err error
	if req.Block, err = encode(hpack.NewEncoder(&buf), &buf, fields, true); err != nil {
		return Request{}, err
	}
	req.First, req.Next = req.Block, req.Block
	for _, f := range fields {
		if !static(f) {
			req.Table += f.Size()
		}
	}
	if req.Table == 0 || req.Table > defaultTable {
		req.Table = 0
		return req, nil
	}
	enc := hpack.NewEncoder(&buf)
	if req.First, err = encode(enc, &buf, fields, false); err != nil {
		return Request{}, err
	}
	if req.Next, err = encode(enc, &buf, fields, false); err != nil { // the same encoder: its table now holds them
		return Request{}, err
	}
	return req, nil
}

// encode returns fields' header block as enc, writing into buf, codes it: never indexed when
// plain, else as enc's table has it.
func encode(enc *hpack.Encoder, buf *bytes.Buffer, fields []hpack.HeaderField, plain bool) ([]byte, error) {
	buf.Reset()
	for _, f := range fields {
		f.Sensitive = plain
		if err := enc.WriteField(f); err != nil {
			return nil, err
		}
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// static reports whether f is in HPACK's static table, name and value: an encoder then refers to
// it, and adds nothing to the table.
func static(f hpack.HeaderField) bool {
	var b bytes.Buffer
	hpack.NewEncoder(&b).WriteField(f)
	return b.Len() > 0 && b.Bytes()[0]&0x80 != 0
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

// staticEntries is the size of HPACK's static table; indices above it name dynamic entries.
const staticEntries = 61

// errDynamic is a block that refers to the dynamic table this client set to no size.
var errDynamic = errors.New("the server referred to its HPACK dynamic table, which this client's SETTINGS_HEADER_TABLE_SIZE 0 forbids")

// StatusDecoder reads the :status of response header blocks sent to a client that set
// SETTINGS_HEADER_TABLE_SIZE to 0 (as the engine does), so that no block can refer to an
// earlier one: it walks the block's representations (RFC 7541 §6), skipping every name and value
// without decoding them, and decodes only a literal :status (Huffman-coded values through x/net's
// hpack). A block costs no allocation, however the server codes its headers (nginx sends each of
// them as a literal "with incremental indexing", which a full decoder would copy into its table).
type StatusDecoder struct {
	buf bytes.Buffer // a Huffman-coded :status value, decoded
}

// NewStatusDecoder returns a decoder.
func NewStatusDecoder() *StatusDecoder { return &StatusDecoder{} }

// Decode reads one complete header block and returns its :status, 0 when it has none (as
// trailers have not).
func (s *StatusDecoder) Decode(block []byte) (status int, err error) {
	for len(block) > 0 {
		b := block[0]
		var idx uint64
		switch {
		case b&0x80 != 0: // indexed field
			if idx, block, err = varint(block, 7); err != nil {
				return 0, err
			}
			if idx > staticEntries {
				return 0, errDynamic
			}
			if idx >= 8 && idx <= 14 && status == 0 {
				status = staticStatus[idx-8]
			}
			continue
		case b&0xe0 == 0x20: // dynamic table size update
			if _, block, err = varint(block, 5); err != nil {
				return 0, err
			}
			continue
		case b&0xc0 == 0x40: // literal with incremental indexing
			idx, block, err = varint(block, 6)
		default: // literal without indexing, or never indexed
			idx, block, err = varint(block, 4)
		}
		if err != nil {
			return 0, err
		}
		if idx > staticEntries {
			return 0, errDynamic
		}
		var name, value []byte
		var nameHuff, valueHuff bool
		if idx == 0 {
			if name, nameHuff, block, err = str(block); err != nil {
				return 0, err
			}
		}
		if value, valueHuff, block, err = str(block); err != nil {
			return 0, err
		}
		if status == 0 && (idx >= 8 && idx <= 14 || idx == 0 && s.is(name, nameHuff, ":status")) {
			if status, err = s.status(value, valueHuff); err != nil {
				return 0, err
			}
		}
	}
	return status, nil
}

// is reports whether a literal name, Huffman-coded or not, is want.
func (s *StatusDecoder) is(name []byte, huff bool, want string) bool {
	if !huff {
		return string(name) == want
	}
	s.buf.Reset()
	_, err := hpack.HuffmanDecode(&s.buf, name)
	return err == nil && s.buf.String() == want
}

// status parses a literal :status value.
func (s *StatusDecoder) status(v []byte, huff bool) (int, error) {
	if huff {
		s.buf.Reset()
		if _, err := hpack.HuffmanDecode(&s.buf, v); err != nil {
			return 0, err
		}
		v = s.buf.Bytes()
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("malformed :status %q", v)
		}
		n = n*10 + int(c-'0')
	}
	if len(v) != 3 || n < 100 {
		return 0, fmt.Errorf("malformed :status %q", v)
	}
	return n, nil
}

var errTruncated = errors.New("truncated header block")

// varint reads an HPACK integer with an n-bit prefix (RFC 7541 §5.1).
func varint(b []byte, n uint) (uint64, []byte, error) {
	mask := uint64(1)<<n - 1
	v := uint64(b[0]) & mask
	b = b[1:]
	if v < mask {
		return v, b, nil
	}
	for shift := uint(0); len(b) > 0; shift += 7 {
		if shift > 56 {
			return 0, nil, errors.New("HPACK integer too large")
		}
		c := b[0]
		b = b[1:]
		v += uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, b, nil
		}
	}
	return 0, nil, errTruncated
}

// str reads an HPACK string literal (RFC 7541 §5.2) without decoding it.
func str(b []byte) (s []byte, huff bool, rest []byte, err error) {
	if len(b) == 0 {
		return nil, false, nil, errTruncated
	}
	huff = b[0]&0x80 != 0
	n, b, err := varint(b, 7)
	if err != nil {
		return nil, false, nil, err
	}
	if uint64(len(b)) < n {
		return nil, false, nil, errTruncated
	}
	return b[:n], huff, b[n:], nil
}
