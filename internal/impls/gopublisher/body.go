package gopublisher

import (
	"encoding/binary"
	"errors"
	"strconv"
	"time"
)

// Body formats.
const (
	// BodyBinary is --size bytes: a HeaderSize-byte bookkeeping header (magic, publisher,
	// sequence number, send time) padded with 'x'.
	BodyBinary = "binary"
	// BodySeed is seed 2's JSON, {"id": i, "content": "Hello World #i", "timestamp": "..."},
	// 80-90 bytes; the timestamp is the send time (RFC 3339, nanoseconds, UTC).
	BodySeed = "seed"
	// BodySeedMin is the "ultra" publisher's JSON without the timestamp, 35-45 bytes; a consumer
	// can count it but not time it.
	BodySeedMin = "seed-min"
)

// HeaderSize is the size of the bookkeeping header of a binary body, the smallest --size.
const HeaderSize = 24

var magic = [4]byte{'i', 'o', 'b', '1'}

// Stamp is the bookkeeping a consumer reads back from a body.
type Stamp struct {
	Seq       uint64 // global message number, unique within a run
	Publisher int    // -1 when the body does not say (seed bodies)
	SentNS    int64  // send time, Unix nanoseconds; 0 when the body does not say
}

// ErrBody is returned by Decode for a body iobench did not write.
var ErrBody = errors.New("not an iobench publish body")

// NewBody returns a reusable body buffer for format and size (size is used by BodyBinary).
func NewBody(format string, size int) []byte {
	if format == BodyBinary {
		b := make([]byte, size)
		copy(b, magic[:])
		for i := HeaderSize; i < size; i++ {
			b[i] = 'x'
		}
		return b
	}
	return make([]byte, 0, 128)
}

// Encode writes message seq of publisher pub, sent at now, into buf (from NewBody) and returns
// the body. A binary body is rewritten in place; JSON bodies are appended without allocating.
func Encode(buf []byte, format string, seq uint64, pub int, now time.Time) []byte {
	switch format {
	case BodyBinary:
		binary.BigEndian.PutUint32(buf[4:8], uint32(pub))
		binary.BigEndian.PutUint64(buf[8:16], seq)
		binary.BigEndian.PutUint64(buf[16:24], uint64(now.UnixNano()))
		return buf
	default:
		b := append(buf[:0], `{"id":`...)
		b = strconv.AppendUint(b, seq, 10)
		b = append(b, `,"content":"Hello World #`...)
		b = strconv.AppendUint(b, seq, 10)
		if format == BodySeedMin {
			return append(b, `"}`...)
		}
		b = append(b, `","timestamp":"`...)
		b = now.UTC().AppendFormat(b, time.RFC3339Nano)
		return append(b, `"}`...)
	}
}

// Decode reads the bookkeeping back from a body written by Encode (any format).
func Decode(body []byte) (Stamp, error) {
	if len(body) >= HeaderSize && [4]byte(body[:4]) == magic {
		return Stamp{
			Publisher: int(binary.BigEndian.Uint32(body[4:8])),
			Seq:       binary.BigEndian.Uint64(body[8:16]),
			SentNS:    int64(binary.BigEndian.Uint64(body[16:24])),
		}, nil
	}
	return decodeJSON(body)
}

// decodeJSON reads id and, when present, timestamp from a seed body. It expects the layout
// Encode writes (and Python's json.dumps of the seed's dict), not arbitrary JSON.
func decodeJSON(b []byte) (Stamp, error) {
	s := Stamp{Publisher: -1}
	v, ok := field(b, `"id":`)
	if !ok {
		return s, ErrBody
	}
	id, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return s, ErrBody
	}
	s.Seq = id
	if ts, ok := field(b, `"timestamp":`); ok {
		if len(ts) < 2 || ts[0] != '"' || ts[len(ts)-1] != '"' {
			return s, ErrBody
		}
		// Ours is RFC 3339 in UTC; Python's isoformat() has no zone and is local time.
		if t, err := time.Parse(time.RFC3339Nano, string(ts[1:len(ts)-1])); err == nil {
			s.SentNS = t.UnixNano()
		} else if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", string(ts[1:len(ts)-1]), time.Local); err == nil {
			s.SentNS = t.UnixNano()
		}
	}
	return s, nil
}

// field returns the raw value after key (up to the next ',' or '}' outside a string), skipping
// spaces after the colon.
func field(b []byte, key string) ([]byte, bool) {
	i := indexOf(b, key)
	if i < 0 {
		return nil, false
	}
	b = b[i+len(key):]
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	inStr := false
	for j := 0; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == '}'):
			return b[:j], j > 0
		}
	}
	return nil, false
}

func indexOf(b []byte, key string) int {
	for i := 0; i+len(key) <= len(b); i++ {
		if string(b[i:i+len(key)]) == key {
			return i
		}
	}
	return -1
}
