package bus

import (
	"encoding/json"
	"errors"
	"fmt"
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
	if err := json.Unmarshal(body, &m); err != nil {
		return m, fmt.Errorf("%w: %v", ErrBadMessage, err)
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
