package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/iobench/iobench/internal/units"
)

// SoFar is what a step has measured so far, while it runs.
type SoFar struct {
	Planned  int64 // the requests of the whole window: rate × window
	Answered int64 // answers so far, in the window
	Errors   int64 // errors so far, in the window
	// LatencyAt is the p-th percentile (0-100) of the latency so far, from the intended start.
	LatencyAt func(p float64) time.Duration
}

// Spent returns why a step already broke an SLO whatever the rest of its window brings, and
// whether it did: more answers over a latency limit than the SLO's percentile leaves room for in
// the whole window (for p99 < 20 ms, 1% of the planned requests), or more errors than allowed.
// A step past the service's knee is stopped there: its queue, left to grow for the whole
// window, is a backlog the service carries into the steps after (node's http server, 6 s at
// 64,000 req/s over its 54,000, answered the next step, at 48,000, with a median of 380 ms).
func Spent(slos []SLO, p SoFar) (string, bool) {
	for _, s := range slos {
		if s.Metric == "errors" {
			if allowed := s.Pct / 100 * float64(p.Planned); float64(p.Errors) > allowed {
				return fmt.Sprintf("%s errors already, more than %s allows in %s requests", units.Count(p.Errors), s, units.Count(p.Planned)), true
			}
			continue
		}
		allowed := math.Floor((1 - latencyMetrics[s.Metric]/100) * float64(p.Planned))
		if float64(p.Answered) <= allowed || p.LatencyAt == nil {
			continue
		}
		// the answers over the limit are more than allowed when the percentile that leaves
		// exactly allowed of them above it is at the limit or over
		if at := p.LatencyAt(100 * (1 - allowed/float64(p.Answered))); at >= s.Limit {
			return fmt.Sprintf("more than %s answers at %s or more already, the most %s allows in %s requests",
				units.Count(int64(allowed)), millis(s.Limit), s, units.Count(p.Planned)), true
		}
	}
	return "", false
}
