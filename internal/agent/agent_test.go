package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/engine"
)

// TestSplitProperties checks, for many (N, C, R, -n), that the agents' connections and requests
// add up to the whole and differ by at most one, that their rates add up to R, and that the
// threads never outnumber an agent's connections.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(64)
		w := Whole{Connections: n + rng.IntN(1000), Threads: rng.IntN(9), Rate: float64(1 + rng.IntN(200000))}
		if trial%3 == 0 {
			w.Rate, w.Requests = 0, int64(n)+rng.Int64N(1_000_000)
		}
		var conns, reqs []int64
		var rate float64
		for i := 0; i < n; i++ {
			l, err := Spec{Index: i, Count: n}.Split(w)
			if err != nil {
				t.Fatalf("split %+v for agent %d/%d: %v", w, i, n, err)
			}
			if l.Threads > l.Connections {
				t.Fatalf("%+v agent %d/%d: %d threads for %d connections", w, i, n, l.Threads, l.Connections)
			}
			conns, reqs, rate = append(conns, int64(l.Connections)), append(reqs, l.Requests), rate+l.Rate
		}
		checkParts(t, "connections", conns, int64(w.Connections))
		if w.Requests > 0 {
			checkParts(t, "requests", reqs, w.Requests)
		}
		if math.Abs(rate-w.Rate) > 1e-9*w.Rate {
			t.Fatalf("N=%d: rates add up to %v, want %v", n, rate, w.Rate)
		}
	}
}

func checkParts(t *testing.T, what string, parts []int64, total int64) {
	t.Helper()
	var sum int64
	for _, p := range parts {
		sum += p
	}
	if sum != total || slices.Max(parts)-slices.Min(parts) > 1 {
		t.Fatalf("%s %v: sum %d (want %d), spread %d (want at most 1)", what, parts, sum, total, slices.Max(parts)-slices.Min(parts))
	}
	if !slices.IsSortedFunc(parts, func(a, b int64) int { return int(b - a) }) {
		t.Fatalf("%s %v: the remainder must go to the first agents", what, parts)
	}
}

func TestSplitRefusesTooFewConnections(t *testing.T) {
	if _, err := (Spec{Index: 0, Count: 4}).Split(Whole{Connections: 3}); err == nil {
		t.Fatal("3 connections split over 4 agents: want an error")
	}
	if _, err := (Spec{Index: 0, Count: 4}).Split(Whole{Connections: 4, Requests: 3}); err == nil {
		t.Fatal("3 requests split over 4 agents: want an error")
	}
}

// schedule lists the intended starts (from start) of every request before end of a run at rate
// over conns connections shifted by phase, through the engine's own Pacer on a virtual clock.
func schedule(rate float64, conns int, phase, end time.Duration) []time.Duration {
	start := time.Unix(1_800_000_000, 0)
	var out []time.Duration
	for k := 0; k < conns; k++ {
		p := engine.NewPacer(instant{}, start.Add(phase), rate, k, conns)
		for i := int64(0); ; i++ {
			at := p.At(i).Sub(start)
			if at >= end {
				break
			}
			out = append(out, at)
		}
	}
	slices.Sort(out)
	return out
}

// instant is a clock the schedule never asks.
type instant struct{}

func (instant) Now() time.Time      { return time.Time{} }
func (instant) Sleep(time.Duration) {}

// TestScheduleUnion checks that the agents' open-loop schedules together are the schedule of one
// generator at the whole rate over all the connections, request for request (to a nanosecond).
func TestScheduleUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	for trial := 0; trial < 120; trial++ {
		n := 1 + rng.IntN(9)
		w := Whole{Connections: n + rng.IntN(40), Rate: float64(n + rng.IntN(3000))}
		if trial%2 == 1 {
			w.Rate += rng.Float64() // a rate that is not a whole number
		}
		span := time.Second
		one := schedule(w.Rate, w.Connections, 0, span)
		var all []time.Duration
		for i := 0; i < n; i++ {
			l, _ := Spec{Index: i, Count: n}.Split(w)
			all = append(all, schedule(l.Rate, l.Connections, l.Phase, span)...)
		}
		slices.Sort(all)
		// A request due at the very end may fall either side of it by a rounding: leave it out.
		one, all = before(one, span-time.Microsecond), before(all, span-time.Microsecond)
		if len(all) != len(one) {
			t.Fatalf("N=%d %+v: the agents scheduled %d requests, one generator %d", n, w, len(all), len(one))
		}
		for j := range one {
			if d := all[j] - one[j]; d < -time.Nanosecond || d > time.Nanosecond {
				t.Fatalf("N=%d %+v: request %d at %v, one generator's at %v", n, w, j, all[j], one[j])
			}
		}
	}
}

func before(xs []time.Duration, end time.Duration) []time.Duration {
	i, _ := slices.BinarySearch(xs, end)
	return xs[:i]
}
