package stats

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/iobench/iobench/internal/result"
)

const (
	lowest  = 1                                   // 1 µs
	highest = int64(time.Hour / time.Microsecond) // 1 h in µs
	sigFigs = 3
)

// Percentiles are the points every latency summary reports.
var Percentiles = []float64{50, 75, 90, 99, 99.9, 99.99, 100}

// Histogram records durations with microsecond resolution from 1 µs to 1 h. Its memory is fixed
// at creation. It is not safe for concurrent use.
type Histogram struct {
	h *hdr.Histogram
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(lowest, highest, sigFigs)}
}

// Record adds one duration. Values below 1 µs count as 1 µs and above 1 h as 1 h, so no sample
// is ever dropped.
func (h *Histogram) Record(d time.Duration) {
	us := d.Microseconds()
	if us < lowest {
		us = lowest
	} else if us > highest {
		us = highest
	}
	_ = h.h.RecordValue(us) // cannot fail: the value is clamped into range
}

// Merge adds every sample of o into h.
func (h *Histogram) Merge(o *Histogram) {
	h.h.Merge(o.h)
}

// Reset empties h, keeping its memory.
func (h *Histogram) Reset() { h.h.Reset() }

// Count returns the number of samples.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Quantile returns the value at percentile p (0-100) in microseconds.
func (h *Histogram) Quantile(p float64) float64 {
	return float64(h.h.ValueAtQuantile(p))
}

// Mean returns the mean in microseconds.
func (h *Histogram) Mean() float64 { return h.h.Mean() }

// Stdev returns the standard deviation in microseconds.
func (h *Histogram) Stdev() float64 { return h.h.StdDev() }

// Max returns the largest sample in microseconds (exact to the histogram's precision).
func (h *Histogram) Max() float64 { return float64(h.h.Max()) }

// Summary returns the record form of h, with the percentiles of Percentiles and the encoded
// histogram so that later readers can merge runs exactly.
func (h *Histogram) Summary() *result.Latency {
	l := &result.Latency{Unit: "us", Count: h.Count()}
	if l.Count == 0 {
		return l
	}
	l.Min = float64(h.h.Min())
	l.Mean = round2(h.Mean())
	l.Stdev = round2(h.Stdev())
	buckets := h.sparse()
	l.WithinStdev = h.withinStdev(buckets)
	l.Max = h.Max()
	for _, p := range Percentiles {
		l.Percentiles = append(l.Percentiles, result.Percentile{P: p, Value: h.Quantile(p)})
	}
	l.Histogram = buckets.encode()
	return l
}

// Decode rebuilds a histogram from a summary's encoded form.
func Decode(l *result.Latency) (*Histogram, error) {
	h, err := hdr.Decode([]byte(l.Histogram))
	if err != nil {
		return nil, err
	}
	return &Histogram{h: h}, nil
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// WithinStdev returns the percentage of samples within one standard deviation of the mean
// (wrk's "+/- Stdev" column).
func (h *Histogram) WithinStdev() float64 { return h.withinStdev(h.sparse()) }

// withinStdev is WithinStdev over buckets, a Sparse copy of h.
func (h *Histogram) withinStdev(buckets *Sparse) float64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	mean, sd := h.Mean(), h.Stdev()
	lo, hi := mean-sd, mean+sd
	var in int64
	buckets.each(func(from, width, count int64) {
		if float64(from) >= lo && float64(from+width-1) <= hi {
			in += count
		}
	})
	return round2(100 * float64(in) / float64(n))
}
