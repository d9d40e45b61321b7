package stats

import (
	"sort"

	"github.com/iobench/iobench/internal/units"
)

// Spread summarizes one figure over the repeats of a group of runs.
type Spread struct {
	N      int
	Median float64
	Min    float64
	Max    float64
}

// SpreadOf returns the median, minimum and maximum of xs (zero for none).
func SpreadOf(xs []float64) Spread {
	s := Spread{N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	s.Min, s.Max = v[0], v[len(v)-1]
	if n := len(v); n%2 == 1 {
		s.Median = v[n/2]
	} else {
		s.Median = (v[n/2-1] + v[n/2]) / 2
	}
	return s
}

// Width returns the spread (max - min) as a share of the median, or 0 without a median.
func (s Spread) Width() float64 {
	if s.Median == 0 {
		return 0
	}
	return (s.Max - s.Min) / s.Median
}

// Over returns s's median over b's, 0 when b's median is 0.
func (s Spread) Over(b Spread) float64 { return units.Div(s.Median, b.Median) }

// MicrosText formats the median of a spread of durations given in microseconds (a latency, or
// CPU per 1,000 operations) as wrk does, "–" without one.
func (s Spread) MicrosText() string {
	if s.N == 0 {
		return units.None
	}
	return units.Micros(s.Median)
}
