package httpload

import "bytes"

// The byte-level helpers of the response parser: they compare and convert in place, so parsing a
// response creates no strings.

func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if !isDigit(c) || n > maxBodyLen/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// forTokens calls f with each trimmed, non-empty element of a comma-separated list.
func forTokens(v []byte, f func([]byte)) {
	for len(v) > 0 {
		tok := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		if tok = trimOWS(tok); len(tok) > 0 {
			f(tok)
		}
	}
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold reports whether b equals the ASCII string s, ignoring case, without allocating.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// clip shortens a malformed line for an error message.
func clip(b []byte) string {
	const n = 60
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
