// Package units parses and formats the quantities iobench shows people: durations in wrk's style
// (bare numbers are seconds, as wrk reads them), byte counts, and rates.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a non-negative duration: a Go duration ("10s", "1m30s", "250ms") or a bare
// number of seconds ("30", as wrk's -d accepts). Units h, m, s, ms, us, ns are accepted.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty duration; use a number with a unit such as 10s or 2m")
	}
	if n, err := strconv.ParseFloat(t, 64); err == nil {
		if n < 0 || math.IsNaN(n) || n > float64(math.MaxInt64)/float64(time.Second) {
			return 0, fmt.Errorf("duration %q out of range; use a positive value such as 10s", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("cannot read duration %q; use a number with a unit such as 10s or 2m", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative; use a positive value such as 10s", s)
	}
	return d, nil
}

// Micros formats a duration given in microseconds as wrk does: "812.00us", "1.23ms", "2.50s".
func Micros(us float64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%.2fus", us)
	case us < 1e6:
		return fmt.Sprintf("%.2fms", us/1e3)
	case us < 60e6:
		return fmt.Sprintf("%.2fs", us/1e6)
	default:
		return fmt.Sprintf("%.2fm", us/60e6)
	}
}

// Bytes formats a byte count with binary prefixes, named as such: "12.34MiB" (wrk prints the
// same figure as "12.34MB").
func Bytes(n float64) string {
	const unit = 1024
	suffixes := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= unit && i < len(suffixes)-1 {
		n /= unit
		i++
	}
	return fmt.Sprintf("%.2f%s", n, suffixes[i])
}

// Count formats a number with thousands separators: 1234567 -> "1,234,567".
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Rate formats a per-second rate with thousands separators and two decimals: "12,345.67".
func Rate(r float64) string {
	whole := int64(r)
	frac := int64(math.Round((r - float64(whole)) * 100))
	if frac == 100 {
		whole, frac = whole+1, 0
	}
	return fmt.Sprintf("%s.%02d", Count(whole), frac)
}

// None is what a table cell shows for a figure not measured.
const None = "–"

// OrNone returns s, or None when s is empty.
func OrNone(s string) string {
	if s == "" {
		return None
	}
	return s
}

// RateText formats a rate with its unit: "82,327 req/s", "12.50 req/s" below 100.
func RateText(v float64, unit string) string {
	s := Count(int64(math.Round(v)))
	if v < 100 {
		s = fmt.Sprintf("%.2f", v)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

// RatioText formats a ratio as "2.31×", None for none.
func RatioText(r float64) string {
	if r == 0 {
		return None
	}
	return fmt.Sprintf("%.2f×", r)
}

// Div returns a / b, 0 when b is 0 or the quotient is not a number.
func Div(a, b float64) float64 {
	if b == 0 || math.IsNaN(a/b) {
		return 0
	}
	return a / b
}
