package stats

import (
	"math"

	"github.com/iobench/iobench/internal/result"
)

// Rates summarizes per-second rate samples: mean, standard deviation, max, and the share within
// one standard deviation. It returns nil for no samples.
func Rates(samples []float64) *result.RateStats {
	if len(samples) == 0 {
		return nil
	}
	var sum, max float64
	for _, v := range samples {
		sum += v
		max = math.Max(max, v)
	}
	mean := sum / float64(len(samples))
	var sq float64
	for _, v := range samples {
		sq += (v - mean) * (v - mean)
	}
	sd := 0.0
	if len(samples) > 1 {
		sd = math.Sqrt(sq / float64(len(samples)-1))
	}
	var in int
	for _, v := range samples {
		if math.Abs(v-mean) <= sd {
			in++
		}
	}
	return &result.RateStats{
		Mean:        round2(mean),
		Stdev:       round2(sd),
		Max:         round2(max),
		WithinStdev: round2(100 * float64(in) / float64(len(samples))),
	}
}
