// Package httpbytes holds the byte-level helpers that HTTP/1.1 parsing needs on both sides of a
// connection (the httpload client and the rawhttp server): they compare and convert in place, so a
// parser built on them creates no strings and allocates nothing.
package httpbytes

import "bytes"

// ParseDecimal parses a non-negative decimal of at most max; ok is false for an empty input, a
// non-digit or a value above max.
func ParseDecimal(b []byte, max int64) (n int64, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if !IsDigit(c) || n > max/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n <= max
}

// ForTokens calls f with each trimmed, non-empty element of a comma-separated list.
func ForTokens(v []byte, f func([]byte)) {
	for len(v) > 0 {
		tok := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		if tok = TrimOWS(tok); len(tok) > 0 {
			f(tok)
		}
	}
}

// TrimOWS removes HTTP's optional white space (spaces and tabs) from both ends.
func TrimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// EqualFold reports whether b equals the ASCII string s, ignoring case, without allocating.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if Lower(b[i]) != Lower(s[i]) {
			return false
		}
	}
	return true
}

// Lower returns the lower-case form of an ASCII letter, and any other byte unchanged.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// IsTchar reports whether c may appear in an RFC 9110 token.
func IsTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// IsToken reports whether b is a non-empty RFC 9110 token.
func IsToken[T string | []byte](b T) bool {
	if len(b) == 0 {
		return false
	}
	for i := 0; i < len(b); i++ {
		if !IsTchar(b[i]) {
			return false
		}
	}
	return true
}
