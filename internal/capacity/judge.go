package capacity

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/units"
)

// StepResult is what one step measured over its window (warm-up excluded).
type StepResult struct {
	Target float64 // req/s asked
	// Offered, when above 0, is the rate the schedule offered in the window: with Poisson
	// arrivals a count of mean Target x window, which the achieved rate is held to instead.
	Offered  float64
	Achieved float64 // responses per second the window received: the rate the service kept
	Requests int64   // requests whose intended start fell in the window
	Errors   int64
	Latency  Latencies // from the intended start
	Service  Latencies // from the actual send: the service's own time, without any wait to send
	// GeneratorCPU is the busiest generator thread's CPU over the window, as a share of one core.
	GeneratorCPU float64
	// RunQueueDelay is how long the generator's threads waited to run, on average per time they
	// were scheduled (/proc/PID/task/TID/schedstat).
	RunQueueDelay time.Duration
	// LateSends counts requests sent more than 1 ms after their intended start while their
	// connection was free; ConnWaits those whose connection was still busy (or not yet open) at
	// their intended start.
	LateSends, ConnWaits int64
	// Connections is the pool the step had (the search sets it when the step does not).
	Connections int
	// Stopped says why the step ended before its window did (Spent), empty when it did not.
	Stopped string
}

// BusyConnections is how many of the step's connections were in use on average, by Little's
// law: the rate answered times the service's mean time from the send.
func (r StepResult) BusyConnections() float64 { return r.Achieved * r.Service.Mean.Seconds() }

// Verdicts of a step.
const (
	Pass        = "pass"
	Service     = "service"     // the service was too slow or failed
	Generator   = "generator"   // generator-bound: the generator fell behind
	Connections = "connections" // connection-starved: requests waited for a free connection
)

// Thresholds of the judgement, documented with --find-max.
const (
	minAchieved   = 0.99 // achieved / target for a pass
	busyThread    = 0.85 // generator thread CPU, share of a core
	runQueueShare = 10   // run-queue delay above SLO/runQueueShare is the generator's
	lateShare     = 0.01 // late sends (connection free) above this share of the requests
	starvedShare  = 0.001
	starvedBusy   = 0.5 // busy connections ÷ connections at or above which waits are the pool's
)

// judge returns a step's verdict and why, in words.
func judge(slos []SLO, r StepResult) (verdict, why string) {
	var held, broken []string
	for _, s := range slos {
		v, ok := s.value(r, false)
		if ok {
			held = append(held, fmt.Sprintf("%s %s < %s", s.Metric, v, limitText(s)))
		} else {
			broken = append(broken, fmt.Sprintf("%s %s ≥ %s", s.Metric, v, limitText(s)))
		}
	}
	asked, of := r.Target, ""
	if r.Offered > 0 {
		asked, of = r.Offered, " offered"
	}
	if ratio := units.Div(r.Achieved, asked); ratio < minAchieved {
		// floored, so that a share just under 99% does not read as 99.0%
		broken = append(broken, fmt.Sprintf("achieved %s of %s req/s%s (%.1f%%)", units.RateText(r.Achieved, ""), units.RateText(asked, ""), of, math.Floor(1000*ratio)/10))
	}
	if len(broken) == 0 {
		return Pass, strings.Join(held, ", ")
	}
	if g := generatorBound(slos, r); len(g) > 0 {
		return Generator, strings.Join(g, "; ") + " (" + strings.Join(broken, ", ") + ")"
	}
	if starved(r) && !serviceFails(slos, r) {
		return Connections, fmt.Sprintf("%s of %s requests (%.1f%%) waited for a free connection, while the service's own time met the SLO (%s)",
			units.Count(r.ConnWaits), units.Count(r.Requests), 100*share(r.ConnWaits, r.Requests), strings.Join(broken, ", "))
	}
	return Service, strings.Join(broken, ", ")
}

func limitText(s SLO) string {
	if s.Metric == "errors" {
		return strings.TrimPrefix(s.String(), "errors<")
	}
	return millis(s.Limit)
}

// generatorBound returns what shows the generator fell behind, none when nothing does. Late
// sends count only when a latency SLO (from the intended start) broke while the service's own
// time (from the send) met them all: then the lateness is what broke it. Sends a millisecond
// late do not make a service miss its rate: a step that broke only the achieved rate (or the
// errors) is the service's, late sends or not.
func generatorBound(slos []SLO, r StepResult) []string {
	var why []string
	if r.GeneratorCPU >= busyThread {
		why = append(why, fmt.Sprintf("the generator's busiest thread ran at %.0f%% of a core", 100*r.GeneratorCPU))
	}
	if limit := tightest(slos) / runQueueShare; limit > 0 && r.RunQueueDelay > limit {
		why = append(why, fmt.Sprintf("its threads waited %s on average to run (above a tenth of the SLO, %s)", millis(r.RunQueueDelay), millis(limit)))
	}
	if share(r.LateSends, r.Requests) > lateShare && latencyBroken(slos, r) && !serviceFails(slos, r) {
		why = append(why, fmt.Sprintf("%s requests (%.1f%%) were sent late while their connection was free", units.Count(r.LateSends), 100*share(r.LateSends, r.Requests)))
	}
	return why
}

// latencyBroken reports whether r broke a latency SLO, timed from the intended start.
func latencyBroken(slos []SLO, r StepResult) bool {
	for _, s := range slos {
		if _, ok := s.value(r, false); !ok && s.Metric != "errors" {
			return true
		}
	}
	return false
}

// starved reports whether more than a few requests waited for a free connection while the pool
// was at least half busy on average. Waits in a pool mostly idle are a stall of the service: for
// a moment it held every connection, and a request that waited then would have waited as long
// in the service's own queue (python-asyncio-hello's passing steps at 48,000-73,000 req/s had
// 4.6-28 of their 960-1,460 connections busy on average, BENCHMARKS 8.4).
func starved(r StepResult) bool {
	return share(r.ConnWaits, r.Requests) > starvedShare && r.BusyConnections() >= starvedBusy*float64(r.Connections)
}

// serviceFails reports whether the service broke an SLO by itself: on its own time, from the
// send, without the wait for a connection, or by its errors.
func serviceFails(slos []SLO, r StepResult) bool {
	for _, s := range slos {
		if _, ok := s.value(r, true); !ok {
			return true
		}
	}
	return false
}

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// neededConnections is the -c a starved step needed, by Little's law: the target rate times the
// service's p99 from the send, doubled, at least twice the connections it had and at least 10.
func neededConnections(r StepResult, had int) int {
	n := int(math.Ceil(r.Target * r.Service.P99.Seconds() * 2))
	return max(n, 2*had, minConnections)
}

// minConnections is the least -c the search gives itself.
const minConnections = 10

// DefaultConnections is the connections a step at rate needs at slos: enough for the rate at the
// tightest latency limit by Little's law, doubled (rate × limit × 2), at least 10. With no
// latency SLO, 100 ms of latency is assumed.
func DefaultConnections(rate float64, slos []SLO) int {
	l := tightest(slos)
	if l == 0 {
		l = 100 * time.Millisecond
	}
	return max(minConnections, int(math.Ceil(rate*l.Seconds()*2)))
}
