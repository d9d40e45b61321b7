package hello

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/rawhttp"
)

// fakeClock is a virtual clock: Sleep advances it and records how long it was asked to wait.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// TestQueueSchedule: an idle queue answers 1/R after arrival; requests arriving together leave
// one 1/R after the other; a gap resets the busy period; a rate whose interval is not a whole
// number of nanoseconds does not drift over many answers.
func TestQueueSchedule(t *testing.T) {
	q := NewQueue(1000) // 1 ms
	ms := time.Millisecond
	for i, tc := range []struct{ arrive, due time.Duration }{
		{0, 1 * ms},                      // idle: arrival + 1/R
		{0, 2 * ms},                      // queued behind the first
		{500 * time.Microsecond, 3 * ms}, // queued: the previous answer's time + 1/R
		{10 * ms, 11 * ms},               // idle again: a new busy period
		{10500 * time.Microsecond, 12 * ms},
		{12 * ms, 13 * ms}, // arrives exactly when the previous leaves
	} {
		if got := q.Due(t0.Add(tc.arrive)); !got.Equal(t0.Add(tc.due)) {
			t.Errorf("request %d arriving at %v: due %v, want %v", i, tc.arrive, got.Sub(t0), tc.due)
		}
	}

	q = NewQueue(3) // 333,333,333.3 ns: rounding each interval would lose 1 ns every 3 answers
	var last time.Time
	for range 3000 {
		last = q.Due(t0) // all at once: one busy period of 3000 answers
	}
	if want := t0.Add(1000 * time.Second); !last.Equal(want) {
		t.Errorf("3000 answers at 3/s end at %v, want exactly 1000s", last.Sub(t0))
	}
	c := q.Counts() // from the first answer, at 1/3 s: three in each second
	if len(c) != 1000 || slices.ContainsFunc(c, func(n int64) bool { return n != 3 }) {
		t.Errorf("counts: %d seconds, first %v, last %v; want 1000 of 3", len(c), c[:min(3, len(c))], c[len(c)-1])
	}
}

// TestQueueCounts: answers are counted in the second of their due time, from the first answer.
func TestQueueCounts(t *testing.T) {
	q := NewQueue(100)
	for i := range 250 { // an arrival every 10 ms: 100 a second, each answered 10 ms later
		q.Due(t0.Add(time.Duration(i) * 10 * time.Millisecond))
	}
	if got := q.Counts(); !slices.Equal(got, []int64{100, 100, 50}) {
		t.Errorf("counts %v, want [100 100 50]", got)
	}
}

// TestMaxRateWaits drives the server's handler on a fake clock: each answer waits until its due
// time, and one that wakes late does not move the next due time.
func TestMaxRateWaits(t *testing.T) {
	clock := &fakeClock{now: t0}
	m := &MaxRate{Queue: NewQueue(2000), clock: clock} // 500 µs
	req := rawhttp.Request{Method: rawhttp.MethodGet, Path: []byte("/")}
	var a rawhttp.Answer
	m.answer(context.Background(), req, &a)
	if a.Status != 200 || string(a.Body) != Body || !clock.Now().Equal(t0.Add(500*time.Microsecond)) {
		t.Fatalf("first answer: %d %q at %v, want 200 %q at 500µs", a.Status, a.Body, clock.Now().Sub(t0), Body)
	}
	// The second arrives at once but its handler runs 2 ms late (a slow wake-up): it is not
	// made to wait, and the third, arriving then, is due 1/R after the second's due time.
	m.Queue.Due(clock.Now()) // the second's arrival, 500 µs: due at 1 ms
	clock.set(t0.Add(2 * time.Millisecond))
	before := len(clock.slept)
	m.answer(context.Background(), req, &a) // the third: due max(2ms, 1ms) + 500µs
	if !clock.Now().Equal(t0.Add(2500*time.Microsecond)) || clock.slept[before] != 500*time.Microsecond {
		t.Errorf("third answer at %v after sleeping %v, want 2.5ms after 500µs", clock.Now().Sub(t0), clock.slept[before:])
	}
}
