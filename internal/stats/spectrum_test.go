package stats

import (
	"testing"
	"time"
)

func TestSpectrum(t *testing.T) {
	if s := NewHistogram().Spectrum(5); s != nil {
		t.Errorf("empty histogram: %v", s)
	}
	h := NewHistogram()
	for i := 1; i <= 100000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	s := h.Spectrum(5)
	if len(s) < 40 {
		t.Fatalf("%d points, want the tail sampled densely", len(s))
	}
	for i := 1; i < len(s); i++ {
		if s[i].Percentile <= s[i-1].Percentile || s[i].Value < s[i-1].Value {
			t.Fatalf("not increasing at %d: %v then %v", i, s[i-1], s[i])
		}
	}
	last := s[len(s)-1]
	if last.Percentile != 100 || last.Value != h.Max() {
		t.Errorf("last point %v, want 100%% at the max %v", last, h.Max())
	}
	var tail int
	for _, p := range s {
		if p.Percentile >= 99 {
			tail++
		}
	}
	if tail < 10 {
		t.Errorf("%d points at or beyond p99; the spectrum should resolve the tail", tail)
	}
	if got := h.Spectrum(0); len(got) == 0 {
		t.Error("ticksPerHalf below 1 should be raised to 1")
	}
}
