package stats

import (
	"math"
	"testing"
	"time"
)

func TestRecordAndSummary(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	s := h.Summary()
	if s.Count != 1000 || s.Unit != "us" {
		t.Fatalf("count %d unit %q", s.Count, s.Unit)
	}
	checks := map[float64]float64{50: 500_000, 99: 990_000, 100: 1_000_000}
	for p, want := range checks {
		if got := s.At(p); math.Abs(got-want)/want > 0.001 { // 3 significant digits
			t.Errorf("p%g = %v, want %v within 0.1%%", p, got, want)
		}
	}
}

func TestClampNeverDrops(t *testing.T) {
	h := NewHistogram()
	h.Record(0)
	h.Record(-time.Second)
	h.Record(3 * time.Hour)
	if h.Count() != 3 {
		t.Fatalf("count %d, want 3: out-of-range samples must be clamped, not dropped", h.Count())
	}
	if h.Max() < float64(time.Hour/time.Microsecond)*0.999 {
		t.Fatalf("max %v, want about 1h", h.Max())
	}
}

func TestMergeIsExact(t *testing.T) {
	a, b, all := NewHistogram(), NewHistogram(), NewHistogram()
	for i := 0; i < 5000; i++ {
		d := time.Duration(i*i%9973) * time.Microsecond
		if i%2 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
		all.Record(d)
	}
	a.Merge(b)
	for _, p := range Percentiles {
		if a.Quantile(p) != all.Quantile(p) {
			t.Errorf("p%g merged %v, single %v", p, a.Quantile(p), all.Quantile(p))
		}
	}
}

func TestMemoryIsFixed(t *testing.T) {
	h := NewHistogram()
	before := h.h.ByteSize()
	for i := 0; i < 200_000; i++ {
		h.Record(time.Duration(i%3_600_000) * time.Millisecond)
	}
	if after := h.h.ByteSize(); after != before {
		t.Fatalf("histogram grew from %d to %d bytes", before, after)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	back, err := Decode(h.Summary())
	if err != nil {
		t.Fatal(err)
	}
	if back.Count() != 100 || back.Quantile(50) != h.Quantile(50) {
		t.Fatalf("decoded count %d p50 %v", back.Count(), back.Quantile(50))
	}
}

func TestWithinStdevUniform(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 100000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	if got := h.WithinStdev(); math.Abs(got-57.7) > 0.5 { // 2/sqrt(12) of a uniform distribution
		t.Fatalf("within one stdev %.2f%%, want about 57.7%%", got)
	}
}

func TestRates(t *testing.T) {
	if Rates(nil) != nil {
		t.Fatal("no samples must give nil")
	}
	r := Rates([]float64{10, 20, 30})
	if r.Mean != 20 || r.Max != 30 || r.Stdev != 10 {
		t.Fatalf("%+v", r)
	}
}
