package httpload

import "github.com/iobench/iobench/internal/httpbytes"

// The byte-level helpers of the response parser: they compare and convert in place, so parsing a
// response creates no strings.

func parseDecimal(b []byte) (int64, bool) { return httpbytes.ParseDecimal(b, maxBodyLen) }

// clip shortens a malformed line for an error message.
func clip(b []byte) string {
	const n = 60
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
