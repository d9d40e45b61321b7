package stats

// SpectrumPoint is one point of a latency percentile spectrum.
type SpectrumPoint struct {
	Percentile float64 // 0-100
	Value      float64 // microseconds: the highest value equivalent to the samples at or below Percentile
}

// Spectrum returns the histogram's full percentile spectrum, as HdrHistogram's plotter draws it:
// ticksPerHalf points for each halving of the distance to 100%, so the tail is sampled as
// densely as the body. The last point is the maximum at 100%. It reads h and does not change it.
func (h *Histogram) Spectrum(ticksPerHalf int32) []SpectrumPoint {
	if h.Count() == 0 {
		return nil
	}
	if ticksPerHalf < 1 {
		ticksPerHalf = 1
	}
	var out []SpectrumPoint
	for _, b := range h.h.CumulativeDistributionWithTicks(ticksPerHalf) {
		p := SpectrumPoint{Percentile: b.Quantile, Value: float64(b.ValueAt)}
		if n := len(out); n > 0 && out[n-1].Percentile == p.Percentile {
			out[n-1] = p // the iterator repeats 100%: keep the last
			continue
		}
		out = append(out, p)
	}
	return out
}
