package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"io"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
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

// spread records samples from 1 µs to beyond 1 h, dense and sparse, so that every bucket width
// and runs of empty buckets of every length show up.
func spread(n int) *Histogram {
	h := NewHistogram()
	for i := 1; i <= n; i++ {
		h.Record(time.Duration(i*i%9973) * time.Microsecond)
		h.Record(time.Duration(int64(i)*int64(i)*7919%int64(2*time.Hour/time.Microsecond)) * time.Microsecond)
	}
	for d := time.Microsecond; d < 2*time.Hour; d = d*3/2 + time.Microsecond {
		h.Record(d)
	}
	return h
}

// TestEncodeMatchesLibrary holds the V2 encoder and the bucket geometry it shares with
// WithinStdev to the library's: hdr's Decode reads it back bucket for bucket, and the payload
// is the one hdr's own EncodeV2 deflates.
func TestEncodeMatchesLibrary(t *testing.T) {
	for _, h := range []*Histogram{NewHistogram(), spread(1), spread(20000), full(t)} {
		back, err := Decode(&result.Latency{Histogram: h.sparse().encode()})
		if err != nil {
			t.Fatal(err)
		}
		if !back.h.Equals(h.h) {
			t.Fatalf("decoded histogram differs: count %d vs %d, max %d vs %d", back.Count(), h.Count(), back.h.Max(), h.h.Max())
		}
		if h.Count() == 0 {
			continue // hdr writes one empty bucket for an empty histogram, this encoder none
		}
		lib, err := h.h.EncodeV2()
		if err != nil {
			t.Fatal(err)
		}
		if ours, theirs := payload(t, h.sparse().encode()), payload(t, string(lib)); !bytes.Equal(ours, theirs) {
			t.Fatalf("payload differs from hdr's EncodeV2 (%d vs %d bytes)", len(ours), len(theirs))
		}
	}
}

// payload inflates an encoded histogram back to its header and counts.
func payload(t *testing.T, enc string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWithinStdevMatchesDistribution checks the sparse walk against the library's dense one.
func TestWithinStdevMatchesDistribution(t *testing.T) {
	h := spread(20000)
	lo, hi := h.Mean()-h.Stdev(), h.Mean()+h.Stdev()
	var in int64
	for _, b := range h.h.Distribution() {
		if b.Count > 0 && float64(b.From) >= lo && float64(b.To) <= hi {
			in += b.Count
		}
	}
	if want := round2(100 * float64(in) / float64(h.Count())); h.WithinStdev() != want || want == 0 {
		t.Fatalf("within one stdev %v%%, the library's buckets give %v%%", h.WithinStdev(), want)
	}
}

// TestSummaryAllocatesLittle keeps Summary from allocating per bucket of the range: with a 2 h
// sample, hdr's Distribution and EncodeV2 took over 1 MB.
func TestSummaryAllocatesLittle(t *testing.T) {
	h := spread(2000)
	if n := testing.AllocsPerRun(1, func() { h.Summary() }); n > 100 {
		t.Errorf("Summary made %.0f allocations", n)
	}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	h.Summary()
	runtime.ReadMemStats(&b)
	if got := b.TotalAlloc - a.TotalAlloc; got > 256<<10 {
		t.Errorf("Summary allocated %d KiB, want under 256 KiB", got>>10)
	}
}

// TestSparseMatchesHistogram: a Sparse filled from histograms, cleared and filled again, gives
// the percentiles of the same samples in a Histogram; merged Sparses give those of the merge.
func TestSparseMatchesHistogram(t *testing.T) {
	s, h := NewSparse(), spread(5000)
	s.Add(NewHistogram())
	s.Add(spread(300))
	s.Reset()
	s.Add(h)
	more, all := NewSparse(), spread(5000)
	more.Add(spread(700))
	all.Merge(spread(700))
	s.Merge(more)
	if s.Count() != all.Count() {
		t.Fatalf("count %d, want %d", s.Count(), all.Count())
	}
	for _, p := range append(Percentiles, 0, 1, 33.3) {
		if s.Quantile(p) != all.Quantile(p) {
			t.Errorf("p%g: sparse %v, histogram %v", p, s.Quantile(p), all.Quantile(p))
		}
	}
}

// full has every bucket populated with counts that take three bytes each: its encoding's payload
// is over the 64 KiB of one stored block.
func full(t *testing.T) *Histogram {
	h := NewHistogram()
	for v := int64(1); v <= highest; {
		_ = h.h.RecordValues(v, 10_000+v%7)
		_, w := bucketOf(v)
		v += w
	}
	if n := len(payload(t, h.sparse().encode())); n <= maxStoredBlock {
		t.Fatalf("full's payload has %d bytes, want more than one stored block", n)
	}
	return h
}
