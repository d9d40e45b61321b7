package h2wire

import "encoding/binary"

// Preface is what a client sends first on an HTTP/2 connection, before its SETTINGS.
const Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// HeaderLen is the length of a frame header.
const HeaderLen = 9

// Frame types.
const (
	TypeData         uint8 = 0x0
	TypeHeaders      uint8 = 0x1
	TypePriority     uint8 = 0x2
	TypeRSTStream    uint8 = 0x3
	TypeSettings     uint8 = 0x4
	TypePushPromise  uint8 = 0x5
	TypePing         uint8 = 0x6
	TypeGoAway       uint8 = 0x7
	TypeWindowUpdate uint8 = 0x8
	TypeContinuation uint8 = 0x9
	// Types counts the frame types defined by RFC 9113; frames of other types are ignored.
	Types = 10
)

// TypeNames names the frame types, by type, as records count them.
var TypeNames = [Types]string{"data", "headers", "priority", "rst_stream", "settings", "push_promise", "ping", "goaway", "window_update", "continuation"}

// Flags.
const (
	FlagEndStream  uint8 = 0x1
	FlagAck        uint8 = 0x1
	FlagEndHeaders uint8 = 0x4
	FlagPadded     uint8 = 0x8
	FlagPriority   uint8 = 0x20
)

// Settings identifiers.
const (
	SettingHeaderTableSize      uint16 = 0x1
	SettingEnablePush           uint16 = 0x2
	SettingMaxConcurrentStreams uint16 = 0x3
	SettingInitialWindowSize    uint16 = 0x4
	SettingMaxFrameSize         uint16 = 0x5
	SettingMaxHeaderListSize    uint16 = 0x6
)

// Error codes, as RST_STREAM and GOAWAY carry them.
const (
	CodeNo            uint32 = 0x0
	CodeProtocol      uint32 = 0x1
	CodeFlowControl   uint32 = 0x3
	CodeRefusedStream uint32 = 0x7
	CodeCancel        uint32 = 0x8
	// Codes counts the error codes RFC 9113 defines (0x0 to 0xd).
	Codes = 14
)

// CodeNames names the error codes, by code.
var CodeNames = [Codes]string{"no_error", "protocol_error", "internal_error", "flow_control_error", "settings_timeout", "stream_closed", "frame_size_error", "refused_stream", "cancel", "compress_error", "connect_error", "enhance_your_calm", "inadequate_security", "http_1_1_required"}

// CodeName names an error code; codes RFC 9113 does not define are "unknown".
func CodeName(code uint32) string {
	if code < Codes {
		return CodeNames[code]
	}
	return "unknown"
}

// DefaultWindow is the flow-control window of a connection and of every stream until SETTINGS
// or WINDOW_UPDATE change it; DefaultMaxFrame the largest frame payload until SETTINGS raise it.
const (
	DefaultWindow   = 65535
	DefaultMaxFrame = 16384
	MaxWindow       = 1<<31 - 1
)

// Header is a frame header.
type Header struct {
	Length uint32 // of the payload
	Type   uint8
	Flags  uint8
	Stream uint32
}

// ParseHeader reads a frame header from b, which holds at least HeaderLen bytes.
func ParseHeader(b []byte) Header {
	_ = b[8]
	return Header{
		Length: uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]),
		Type:   b[3],
		Flags:  b[4],
		Stream: binary.BigEndian.Uint32(b[5:9]) & (1<<31 - 1),
	}
}

// AppendHeader appends h's nine bytes to dst.
func AppendHeader(dst []byte, h Header) []byte {
	return append(dst, byte(h.Length>>16), byte(h.Length>>8), byte(h.Length), h.Type, h.Flags,
		byte(h.Stream>>24), byte(h.Stream>>16), byte(h.Stream>>8), byte(h.Stream))
}

// SetStream rewrites the stream identifier of the frame header at the start of b.
func SetStream(b []byte, stream uint32) { binary.BigEndian.PutUint32(b[5:9], stream) }

// Setting is one parameter of a SETTINGS frame.
type Setting struct {
	ID  uint16
	Val uint32
}

// AppendSettings appends a SETTINGS frame holding ss (an acknowledgement when ack is set, then
// with no parameters).
func AppendSettings(dst []byte, ack bool, ss ...Setting) []byte {
	var flags uint8
	if ack {
		flags, ss = FlagAck, nil
	}
	dst = AppendHeader(dst, Header{Length: uint32(6 * len(ss)), Type: TypeSettings, Flags: flags})
	for _, s := range ss {
		dst = append(dst, byte(s.ID>>8), byte(s.ID), byte(s.Val>>24), byte(s.Val>>16), byte(s.Val>>8), byte(s.Val))
	}
	return dst
}

// Settings calls fn for each parameter of a SETTINGS payload; it reports false when the payload
// is not a whole number of parameters.
func Settings(payload []byte, fn func(Setting)) bool {
	if len(payload)%6 != 0 {
		return false
	}
	for i := 0; i < len(payload); i += 6 {
		fn(Setting{ID: binary.BigEndian.Uint16(payload[i:]), Val: binary.BigEndian.Uint32(payload[i+2:])})
	}
	return true
}

// AppendWindowUpdate appends a WINDOW_UPDATE frame granting incr more bytes on stream (0: the
// connection).
func AppendWindowUpdate(dst []byte, stream, incr uint32) []byte {
	dst = AppendHeader(dst, Header{Length: 4, Type: TypeWindowUpdate, Stream: stream})
	return binary.BigEndian.AppendUint32(dst, incr&(1<<31-1))
}

// AppendPingAck appends the acknowledgement of a PING whose 8-byte payload is data.
func AppendPingAck(dst, data []byte) []byte {
	dst = AppendHeader(dst, Header{Length: 8, Type: TypePing, Flags: FlagAck})
	return append(dst, data[:8]...)
}

// AppendRSTStream appends a RST_STREAM frame ending stream with code.
func AppendRSTStream(dst []byte, stream, code uint32) []byte {
	dst = AppendHeader(dst, Header{Length: 4, Type: TypeRSTStream, Stream: stream})
	return binary.BigEndian.AppendUint32(dst, code)
}

// Uint32 reads the first four bytes of b, the payload of RST_STREAM (its code) and WINDOW_UPDATE
// (its increment, with the reserved bit cleared).
func Uint32(b []byte) uint32 { return binary.BigEndian.Uint32(b[:4]) }

// GoAway reads a GOAWAY payload: the last stream the server processes and the error code.
func GoAway(payload []byte) (last, code uint32) {
	return binary.BigEndian.Uint32(payload[:4]) & (1<<31 - 1), binary.BigEndian.Uint32(payload[4:8])
}

// Unpad returns the fragment of a HEADERS or DATA payload without its padding and, for HEADERS,
// its priority fields; false when the padding is longer than the payload.
func Unpad(h Header, payload []byte) ([]byte, bool) {
	if h.Flags&FlagPadded != 0 {
		if len(payload) < 1 {
			return nil, false
		}
		pad := int(payload[0])
		payload = payload[1:]
		if pad > len(payload) {
			return nil, false
		}
		payload = payload[:len(payload)-pad]
	}
	if h.Type == TypeHeaders && h.Flags&FlagPriority != 0 {
		if len(payload) < 5 {
			return nil, false
		}
		payload = payload[5:]
	}
	return payload, true
}
