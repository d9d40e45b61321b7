package busproto

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Message types, carried in the "type" field of every body so that a consumer tells commands from
// events when both share one queue (the seed profile).
const (
	TypeCommand = "command"
	TypeEvent   = "event"
)

// Email is the e-mail address of every command, as in the seed.
const Email = "name@qwerty.root"

// Message is a decoded command or event. Commands carry Name and Email; events only ID, Seq and
// SentNS, copied from their command.
type Message struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	Seq    int64  `json:"seq"`
	SentNS int64  `json:"sent_ns"`
}

// ErrBadMessage is wrapped by DecodeMessage for a body that is not a valid command or event.
var ErrBadMessage = errors.New("bad message")

// DecodeMessage parses and validates a body. The id must be a canonical UUID, so that it can be
// copied into an event without escaping and inserted into a uuid column without a database error.
func DecodeMessage(body []byte) (Message, error) {
	var m Message
	if !decodeFlat(body, &m) {
		m = Message{}
		if err := json.Unmarshal(body, &m); err != nil {
			return m, fmt.Errorf("%w: %v", ErrBadMessage, err)
		}
	}
	switch {
	case m.Type != TypeCommand && m.Type != TypeEvent:
		return m, fmt.Errorf("%w: type %q is neither %q nor %q", ErrBadMessage, m.Type, TypeCommand, TypeEvent)
	case !validUUID(m.ID):
		return m, fmt.Errorf("%w: id %q is not a UUID", ErrBadMessage, m.ID)
	case m.Seq < 0:
		return m, fmt.Errorf("%w: negative seq %d", ErrBadMessage, m.Seq)
	case m.Type == TypeCommand && (m.Name == "" || m.Email == ""):
		return m, fmt.Errorf("%w: command %s without name or email", ErrBadMessage, m.ID)
	}
	return m, nil
}

// decodeFlat decodes body the quick way when it is what AppendCommand and AppendEvent write: one
// flat object of Message's exact field names, with ASCII strings without escapes and integers
// as values, in any order. It reports false for anything else, which encoding/json then decodes
// (or refuses) as it would have; for what it takes, the result is json.Unmarshal's.
func decodeFlat(body []byte, m *Message) bool {
	i := 0
	if i = skipSpace(body, i); i >= len(body) || body[i] != '{' {
		return false
	}
	for first := true; ; first = false {
		if i = skipSpace(body, i+1); i < len(body) && body[i] == '}' && first {
			break
		}
		key, j, ok := flatString(body, i)
		if j = skipSpace(body, j); !ok || j >= len(body) || body[j] != ':' {
			return false
		}
		if i, ok = flatField(body, skipSpace(body, j+1), key, m); !ok {
			return false
		}
		if i = skipSpace(body, i); i < len(body) && body[i] == '}' {
			break
		}
		if i >= len(body) || body[i] != ',' {
			return false
		}
	}
	return skipSpace(body, i+1) == len(body)
}

// flatField decodes the value at body[i] into m's field named key and returns the index after it.
func flatField(body []byte, i int, key []byte, m *Message) (int, bool) {
	var dst *string
	switch string(key) {
	case "type":
		dst = &m.Type
	case "id":
		dst = &m.ID
	case "name":
		dst = &m.Name
	case "email":
		dst = &m.Email
	case "seq":
		return flatInt(body, i, &m.Seq)
	case "sent_ns":
		return flatInt(body, i, &m.SentNS)
	default:
		return i, false
	}
	v, j, ok := flatString(body, i)
	if ok {
		*dst = intern(v)
	}
	return j, ok
}

// intern returns v as a string, without allocating for the values every message repeats.
func intern(v []byte) string {
	for _, s := range [...]string{TypeCommand, TypeEvent, Email} {
		if string(v) == s {
			return s
		}
	}
	return string(v)
}

// flatString returns the string opening at body[i] when it is printable ASCII without escapes.
func flatString(body []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(body) || body[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(body); j++ {
		switch c := body[j]; {
		case c == '"':
			return body[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, j, false
		}
	}
	return nil, len(body), false
}

// flatInt decodes the JSON integer at body[i] (no fraction or exponent) into *dst.
func flatInt(body []byte, i int, dst *int64) (int, bool) {
	j := i
	if j < len(body) && body[j] == '-' {
		j++
	}
	start := j
	for j < len(body) && body[j] >= '0' && body[j] <= '9' {
		j++
	}
	if j == start || body[start] == '0' && j > start+1 || j < len(body) && (body[j] == '.' || body[j] == 'e' || body[j] == 'E') {
		return i, false
	}
	if j-start > 19 { // beyond int64: encoding/json says so
		return i, false
	}
	var n uint64 // 19 digits fit
	for _, c := range body[start:j] {
		n = n*10 + uint64(c-'0')
	}
	neg := start > i
	if n > math.MaxInt64 && !(neg && n == math.MaxInt64+1) {
		return i, false
	}
	*dst = int64(n)
	if neg {
		*dst = -*dst
	}
	return j, true
}

// skipSpace returns the index of the first byte at or after i that is not JSON white space.
func skipSpace(body []byte, i int) int {
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	return i
}

// AppendCommand appends the body of command seq to buf: the seed payload (id, name_N, email) plus
// the type, the sequence number and the send time that iobench needs to account for it.
func AppendCommand(buf []byte, id string, seq, sentNS int64) []byte {
	buf = append(buf, `{"type":"command","id":"`...)
	buf = append(buf, id...)
	buf = append(buf, `","name":"name_`...)
	buf = strconv.AppendInt(buf, seq, 10)
	buf = append(buf, `","email":"`+Email+`","seq":`...)
	buf = strconv.AppendInt(buf, seq, 10)
	buf = append(buf, `,"sent_ns":`...)
	buf = strconv.AppendInt(buf, sentNS, 10)
	return append(buf, '}')
}

// AppendEvent appends the body of the event that follows command m (the seed's CustomerStored:
// the id, plus seq and send time for accounting). m.ID must have passed DecodeMessage.
func AppendEvent(buf []byte, m *Message) []byte {
	buf = append(buf, `{"type":"event","id":"`...)
	buf = append(buf, m.ID...)
	buf = append(buf, `","seq":`...)
	buf = strconv.AppendInt(buf, m.Seq, 10)
	buf = append(buf, `,"sent_ns":`...)
	buf = strconv.AppendInt(buf, m.SentNS, 10)
	return append(buf, '}')
}

// validUUID reports whether s is a UUID in canonical 8-4-4-4-12 hexadecimal form.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
