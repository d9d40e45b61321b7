package engine

import (
	"math"
	"slices"
	"sort"
	"testing"
	"time"
)

// fakeClock is a virtual clock: Sleep advances it, so pacer tests never sleep.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time        { return c.now }
func (c *fakeClock) Sleep(d time.Duration) { c.now = c.now.Add(d) }

func TestPacerSpreadsRateOverConnections(t *testing.T) {
	tests := []struct {
		rate  float64
		conns int
		span  time.Duration
		want  int
	}{
		{rate: 1000, conns: 3, span: time.Second, want: 1000}, // 1000/3 leaves a remainder
		{rate: 7, conns: 2, span: 2 * time.Second, want: 14},
		{rate: 100, conns: 1, span: 500 * time.Millisecond, want: 50},
		{rate: 3, conns: 5, span: time.Second, want: 3}, // fewer requests than connections
	}
	for _, tt := range tests {
		t.Run("", func(t *testing.T) {
			start := time.Unix(1000, 0)
			end := start.Add(tt.span)
			var all []time.Duration
			for k := 0; k < tt.conns; k++ {
				clock := &fakeClock{now: start}
				p := NewPacer(clock, start, tt.rate, k, tt.conns)
				for {
					at, ok := p.Next(end, func() bool { return false })
					if !ok {
						break
					}
					if clock.Now().Before(at) {
						t.Fatalf("Next returned %v before its intended start %v", clock.Now(), at)
					}
					all = append(all, at.Sub(start))
				}
			}
			if len(all) != tt.want {
				t.Fatalf("%d requests scheduled, want %d", len(all), tt.want)
			}
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			gap := time.Duration(float64(time.Second) / tt.rate)
			for i := 1; i < len(all); i++ {
				if d := all[i] - all[i-1]; d < gap-time.Microsecond || d > gap+time.Microsecond {
					t.Fatalf("gap %v between requests %d and %d, want %v", d, i-1, i, gap)
				}
			}
		})
	}
}

func TestPacerKeepsScheduleWhenLate(t *testing.T) {
	start := time.Unix(0, 0)
	clock := &fakeClock{now: start}
	p := NewPacer(clock, start, 1000, 0, 1) // one request per ms
	never := func() bool { return false }
	at0, _ := p.Next(start.Add(time.Second), never)
	clock.Sleep(50 * time.Millisecond) // the first response took 50 ms
	at1, ok := p.Next(start.Add(time.Second), never)
	if !ok || at1.Sub(at0) != time.Millisecond {
		t.Fatalf("second intended start %v after the first, want 1ms: a slow response must not move the schedule", at1.Sub(at0))
	}
	if lag := clock.Now().Sub(at1); lag != 49*time.Millisecond {
		t.Fatalf("lag %v, want 49ms", lag)
	}
}

func TestPacerStops(t *testing.T) {
	start := time.Unix(0, 0)
	clock := &fakeClock{now: start}
	p := NewPacer(clock, start, 0.5, 0, 1) // one request every 2 s
	p.Next(start.Add(time.Hour), func() bool { return false })
	calls := 0
	_, ok := p.Next(start.Add(time.Hour), func() bool { calls++; return calls > 3 })
	if ok {
		t.Fatal("Next went on after stop reported true")
	}
	if waited := clock.Now().Sub(start); waited > 4*maxNap {
		t.Fatalf("waited %v after a stop, want at most a few naps", waited)
	}
}

// TestSharePacersMergeToRunSchedule: the threads' shares of an event loop (connections k, k+T,
// ...) together make the run's evenly spaced schedule, each start once, for conns not a multiple
// of threads too.
func TestSharePacersMergeToRunSchedule(t *testing.T) {
	for _, tt := range []struct{ conns, threads int }{{5, 2}, {4, 2}, {7, 3}, {1, 1}, {3, 3}} {
		start := time.Unix(0, 0)
		rate, end := 1000.0, start.Add(100*time.Millisecond)
		seen := map[time.Duration]int{}
		for th := 0; th < tt.threads; th++ {
			count := (tt.conns - th + tt.threads - 1) / tt.threads // conns th, th+T, ... below conns
			p := newSharePacer(&fakeClock{now: start}, start, rate, th, tt.threads, count, tt.conns)
			last := time.Duration(-1)
			for at, ok := p.peek(end); ok; at, ok = p.peek(end) {
				p.skip()
				if d := at.Sub(start); d <= last {
					t.Fatalf("%+v thread %d: start %v after %v, want each later than the last", tt, th, d, last)
				} else {
					last = d
				}
				seen[at.Sub(start)]++
			}
		}
		if len(seen) != 100 {
			t.Fatalf("%+v: %d distinct starts in 100 ms at 1,000/s, want 100", tt, len(seen))
		}
		for i := 0; i < 100; i++ {
			if n := seen[time.Duration(i)*time.Millisecond]; n != 1 {
				t.Fatalf("%+v: start %d ms handed out %d times, want once", tt, i, n)
			}
		}
	}
}

// poissonStarts draws the merged schedule of threads' Poisson shares of conns connections over
// span at rate, checking that each share's starts rise.
func poissonStarts(t *testing.T, seed uint64, rate float64, conns, threads int, span time.Duration) []time.Duration {
	t.Helper()
	start := time.Unix(0, 0)
	end := start.Add(span)
	var all []time.Duration
	for th := 0; th < threads; th++ {
		count := (conns - th + threads - 1) / threads
		p := newSharePacer(&fakeClock{now: start}, start, rate, th, threads, count, conns)
		p.usePoisson(seed, 0)
		last := time.Duration(-1)
		for at, ok := p.peek(end); ok; at, ok = p.peek(end) {
			p.skip()
			d := at.Sub(start)
			if d < last {
				t.Fatalf("thread %d: start %v after %v, want each at or after the last", th, d, last)
			}
			last = d
			all = append(all, d)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}

// TestPoissonArrivals: the threads' Poisson shares merge into one Poisson process at the run's
// rate: as many starts as the rate asks for, give or take chance, and gaps that are exponential
// (their spread equals their mean, and a tenth of them are shorter than a tenth of the mean),
// where an even schedule has none shorter than the mean.
func TestPoissonArrivals(t *testing.T) {
	const rate, span = 2000.0, 20 * time.Second
	all := poissonStarts(t, 7, rate, 5, 2, span)
	want := rate * span.Seconds()
	if n := float64(len(all)); math.Abs(n-want) > 4*math.Sqrt(want) {
		t.Fatalf("%d starts in %v at %.0f/s, want %.0f ± %.0f", len(all), span, rate, want, 4*math.Sqrt(want))
	}
	var gaps []float64
	for i := 1; i < len(all); i++ {
		gaps = append(gaps, float64(all[i]-all[i-1]))
	}
	mean, sd := meanSD(gaps)
	per := float64(time.Second) / rate
	if math.Abs(mean-per) > 0.03*per {
		t.Errorf("mean gap %.0f ns, want %.0f ns", mean, per)
	}
	if cv := sd / mean; cv < 0.95 || cv > 1.05 {
		t.Errorf("gaps' sd / mean = %.3f, want 1 (exponential)", cv)
	}
	short := 0
	for _, g := range gaps {
		if g < per/10 {
			short++
		}
	}
	if frac, exp := float64(short)/float64(len(gaps)), 1-math.Exp(-0.1); math.Abs(frac-exp) > 0.01 {
		t.Errorf("%.3f of gaps under a tenth of the mean, want %.3f", frac, exp)
	}
}

// TestPoissonSeed: a seed draws the same schedule every time, another seed a different one, and
// another stream of the same seed (another agent's) a different one too.
func TestPoissonSeed(t *testing.T) {
	a := poissonStarts(t, 1, 500, 4, 2, time.Second)
	b := poissonStarts(t, 1, 500, 4, 2, time.Second)
	c := poissonStarts(t, 2, 500, 4, 2, time.Second)
	if !slices.Equal(a, b) {
		t.Fatal("one seed drew two schedules")
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 1 and 2 drew the same schedule")
	}
	start := time.Unix(0, 0)
	first := func(stream uint64) time.Time {
		p := newSharePacer(&fakeClock{now: start}, start, 500, 0, 1, 4, 4)
		p.usePoisson(1, stream)
		return p.take()
	}
	if first(0).Equal(first(1)) {
		t.Fatal("streams 0 and 1 of seed 1 drew the same first start")
	}
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

// TestScheduled: a share counts the intended starts of a window, evenly R x d of them, and with
// Poisson arrivals those it hands out, counted again from its seed while it is in use.
func TestScheduled(t *testing.T) {
	start := time.Unix(0, 0)
	from, end := start.Add(time.Second), start.Add(3*time.Second)
	even := newSharePacer(&fakeClock{now: start}, start, 1000, 0, 1, 4, 4)
	if n := even.Scheduled(from, end); n != 2000 {
		t.Errorf("even: %d starts in 2 s at 1,000/s, want 2,000", n)
	}
	half := newSharePacer(&fakeClock{now: start}, start, 1000, 1, 2, 2, 4) // connections 1 and 3 of 4
	if n := half.Scheduled(from, end); n != 1000 {
		t.Errorf("even, half the connections: %d starts in 2 s at 1,000/s, want 1,000", n)
	}
	p := newSharePacer(&fakeClock{now: start}, start, 1000, 1, 2, 2, 4)
	p.usePoisson(9, 1)
	var want int64
	for at, ok := p.peek(end); ok; at, ok = p.peek(end) {
		if at.Sub(start) >= time.Second && want == 0 {
			if got := p.Scheduled(from, end); got == 0 {
				t.Fatal("Poisson: no starts counted in the window")
			}
		}
		p.skip()
		if !at.Before(from) {
			want++
		}
	}
	if got := p.Scheduled(from, end); got != want {
		t.Errorf("Poisson: counted %d starts in the window, handed out %d", got, want)
	}
}
