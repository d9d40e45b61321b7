package stats

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// Sparse is a histogram that keeps only its populated buckets, for figures filled from
// Histograms once a second: clearing a Histogram writes all of its 184 KiB (which then stay
// resident), clearing a Sparse writes nothing, and a Sparse holding a run's long tail takes a
// few bytes per populated bucket where a Histogram has a 4 KiB page resident for every 512
// buckets the tail reaches. Recording into one costs a search, so hot paths record into
// Histograms and add those to a Sparse.
type Sparse struct {
	p *hdr.PackedHistogram
}

// NewSparse returns an empty Sparse with Histogram's range and precision.
func NewSparse() *Sparse {
	return &Sparse{p: hdr.NewPacked(lowest, highest, sigFigs)}
}

// Add adds every sample of h into s.
func (s *Sparse) Add(h *Histogram) { s.p.MergeFrom(h.h) }

// Merge adds every sample of o into s.
func (s *Sparse) Merge(o *Sparse) { s.p.Merge(o.p) }

// Reset empties s, keeping its memory.
func (s *Sparse) Reset() { s.p.Reset() }

// Count returns the number of samples.
func (s *Sparse) Count() int64 { return s.p.TotalCount() }

// Quantile returns the value at percentile p (0-100) in microseconds, as Histogram's.
func (s *Sparse) Quantile(p float64) float64 { return float64(s.p.ValueAtPercentile(p)) }
