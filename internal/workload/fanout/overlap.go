package fanout

import (
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// The verdict's bounds on the overlap ratio: below NoOverlapBelow the call and the work ran one
// after the other (1.0 exactly, plus the service's own overhead below it); from OverlapFrom on
// they overlapped (2.0 for equal call and work, fully overlapped); between, partly.
const (
	NoOverlapBelow = 1.3
	OverlapFrom    = 1.6
)

// Verdicts of the overlap ratio.
const (
	VerdictNone    = "no overlap"
	VerdictPartial = "partial overlap"
	VerdictFull    = "overlapped"
	VerdictUnknown = "unknown: no Server-Timing"
)

// Overlap returns (delay + work) / handling, 0 without a handling time.
func Overlap(delay, work, handling time.Duration) float64 {
	if handling <= 0 {
		return 0
	}
	return float64(delay+work) / float64(handling)
}

// VerdictOf says an overlap ratio in words.
func VerdictOf(ratio float64) string {
	switch {
	case ratio <= 0:
		return VerdictUnknown
	case ratio < NoOverlapBelow:
		return VerdictNone
	case ratio < OverlapFrom:
		return VerdictPartial
	}
	return VerdictFull
}

// CheckCalls compares the upstream's count of calls with the service's responses over the run
// (unanswered: requests that got no response, which may or may not have reached it), both over
// the whole run, warm-up included. It says whether every request made exactly one call, and why,
// with the counts.
func CheckCalls(calls, answered, unanswered int64) (bool, string) {
	if unanswered == 0 {
		switch {
		case calls == answered:
			return true, fmt.Sprintf("exactly one upstream call per request: %d calls for %d responses (warm-up included)", calls, answered)
		case calls == 0:
			return false, fmt.Sprintf("the service never called the upstream: 0 calls for %d responses (warm-up included); each request must make exactly one", answered)
		}
		return false, fmt.Sprintf("the upstream counted %d calls for %d responses (warm-up included; %.2f per request); each request must make exactly one",
			calls, answered, float64(calls)/float64(max(answered, 1)))
	}
	if calls >= answered && calls <= answered+unanswered {
		return true, fmt.Sprintf("one upstream call per request: %d calls for %d responses (warm-up included) and %d requests without one", calls, answered, unanswered)
	}
	return false, fmt.Sprintf("the upstream counted %d calls for %d responses (warm-up included) and %d requests without one; one call per request allows %d to %d",
		calls, answered, unanswered, answered, answered+unanswered)
}

// Compare sets a run beside its /sync peer (same impl, load and size): throughput and
// handling-time ratios, and the medians and tails apart, so that a gap the tail made (the seed's
// 1.86x from a few multi-second outliers over equal medians) cannot pass as a speed-up.
func Compare(run, sync *result.Record) string {
	if run == nil || sync == nil || Section(run) == nil || Section(sync) == nil || sync.Throughput.Mean == 0 {
		return ""
	}
	tp := run.Throughput.Mean / sync.Throughput.Mean
	s := fmt.Sprintf("vs /sync: throughput %.2fx", tp)
	h, hs := handlingP50(run), handlingP50(sync)
	if h > 0 && hs > 0 {
		s += fmt.Sprintf(", handling p50 %s vs %s", micros(h), micros(hs))
		if r := h / hs; r > 0.9 && r < 1.1 {
			s += " (" + VerdictNone + ": async handles a request as slowly as sync)"
		}
	}
	p50, p50s := run.Latency.At(50), sync.Latency.At(50)
	p99, p99s := run.Latency.At(99), sync.Latency.At(99)
	if p50 > 0 && p50s > 0 {
		s += fmt.Sprintf("; latency p50 %s vs %s, p99 %s vs %s", micros(p50), micros(p50s), micros(p99), micros(p99s))
		if r := p50 / p50s; (tp > 1.2 || tp < 1/1.2) && r > 0.9 && r < 1.1 {
			s += "; the medians are equal, so the throughput gap comes from the tail, not from overlap"
		}
	}
	return s
}

func handlingP50(rec *result.Record) float64 {
	return Section(rec).Handling.At(50) // Latency.At of nil is 0
}

func micros(us float64) string { return units.Micros(us) }
