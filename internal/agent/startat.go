package agent

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseStartAt reads --start-at: an RFC 3339 time (2026-11-23T15:00:00Z), Unix seconds after an
// @ (@1795000000), or +DURATION from now (+10s, for one machine). now is the time to add to.
func ParseStartAt(s string, now time.Time) (time.Time, error) {
	switch {
	case strings.HasPrefix(s, "+"):
		d, err := time.ParseDuration(s[1:])
		if err == nil && d >= 0 {
			return now.Add(d).Round(time.Millisecond), nil
		}
	case strings.HasPrefix(s, "@"):
		f, err := strconv.ParseFloat(s[1:], 64)
		if err == nil && f > 0 {
			return time.Unix(0, int64(f*1e9)).Round(time.Millisecond), nil
		}
	default:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--start-at %q: give a time as 2026-11-23T15:00:00Z, @UNIXSECONDS or +10s", s)
}

// CheckStart fails when the load should already have begun: at start minus the warm-up.
func CheckStart(start time.Time, warmup time.Duration, now time.Time) error {
	if late := now.Sub(start.Add(-warmup)); late > 0 {
		return fmt.Errorf("--start-at %s with --warmup %s began %s ago; give a later time, e.g. --start-at +%s",
			start.Format(time.RFC3339Nano), warmup, late.Round(time.Millisecond), (warmup + 5*time.Second).String())
	}
	return nil
}
