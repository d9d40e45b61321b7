package engine

import (
	"time"

	"github.com/iobench/iobench/internal/httpbytes"
)

// TimingHeader is the response header a run with Config.Timing reads: the server's own account of
// its handling time (W3C Server Timing), e.g. "Server-Timing: app;dur=21.3".
const TimingHeader = "Server-Timing"

// ServerTiming returns the dur (milliseconds, as the header writes it) of metric in a
// Server-Timing value, to the microsecond; false when the metric or its dur is missing or
// malformed. It allocates nothing, so the engine can read it on every response.
func ServerTiming(value []byte, metric string) (time.Duration, bool) {
	for len(value) > 0 {
		entry := value
		if i := indexByte(value, ','); i >= 0 {
			entry, value = value[:i], value[i+1:]
		} else {
			value = nil
		}
		name := entry
		params := []byte(nil)
		if i := indexByte(entry, ';'); i >= 0 {
			name, params = entry[:i], entry[i+1:]
		}
		if !httpbytes.EqualFold(httpbytes.TrimOWS(name), metric) {
			continue
		}
		for len(params) > 0 {
			p := params
			if i := indexByte(params, ';'); i >= 0 {
				p, params = params[:i], params[i+1:]
			} else {
				params = nil
			}
			p = httpbytes.TrimOWS(p)
			if len(p) > 4 && httpbytes.EqualFold(p[:4], "dur=") {
				return millis(p[4:])
			}
		}
		return 0, false
	}
	return 0, false
}

// millis parses a non-negative decimal number of milliseconds ("21", "21.3", "0.042") into a
// duration, keeping microseconds.
func millis(b []byte) (time.Duration, bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	var us int64
	frac, seen := -1, false
	for _, c := range b {
		switch {
		case c == '.' && frac < 0:
			frac = 0
		case '0' <= c && c <= '9':
			seen = true
			if frac >= 3 {
				continue // below a microsecond
			}
			if us > int64(time.Hour/time.Microsecond) {
				return 0, false
			}
			us = us*10 + int64(c-'0')
			if frac >= 0 {
				frac++
			}
		default:
			return 0, false
		}
	}
	if !seen {
		return 0, false
	}
	for frac = max(frac, 0); frac < 3; frac++ {
		us *= 10
	}
	return time.Duration(us) * time.Microsecond, true
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
