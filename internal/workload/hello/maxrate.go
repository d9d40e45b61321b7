package hello

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/hrtimer"
	"github.com/iobench/iobench/internal/rawhttp"
)

// Queue is the schedule of a server of known capacity R: one queue with a fixed service time of
// 1/R. The answer to a request that arrives at a is due at max(a, the previous answer's due time)
// + 1/R. Due times are computed from the start of the current busy period (base) and the answers
// since (n), never by adding rounded intervals, so no drift accumulates at any rate. Below R its
// latency stays at 1/R; above R its backlog grows without bound: its true knee is exactly R.
// It counts its answers per second of their due time, from its first answer. Safe for
// concurrent use.
type Queue struct {
	interval float64 // ns per answer: 1/R

	mu     sync.Mutex
	base   time.Time // start of the busy period
	n      int64     // answers due since base
	last   time.Time // the previous answer's due time
	first  time.Time // the first answer's due time, the origin of counts
	counts []int64   // answers per second since first
}

// NewQueue returns the schedule of a server answering rate requests per second at most.
func NewQueue(rate float64) *Queue {
	return &Queue{interval: float64(time.Second) / rate}
}

// Due returns when the answer to a request arriving at arrival leaves, and counts it.
func (q *Queue) Due(arrival time.Time) time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.last.IsZero() || !arrival.Before(q.last) { // idle: a new busy period begins
		q.base, q.n = arrival, 0
	}
	q.n++
	q.last = q.base.Add(time.Duration(float64(q.n) * q.interval))
	if q.first.IsZero() {
		q.first = q.last
	}
	sec := int(q.last.Sub(q.first) / time.Second)
	for len(q.counts) <= sec {
		q.counts = append(q.counts, 0)
	}
	q.counts[sec]++
	return q.last
}

// Counts returns the answers due in each second since the first one.
func (q *Queue) Counts() []int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]int64(nil), q.counts...)
}

// MaxRate is the hello server of known capacity: hello's answers, each sent when Queue says.
type MaxRate struct {
	Queue *Queue
	clock engine.Clock
	// waits holds each answer until its due time to within the kernel's high-resolution timer:
	// on a time.Timer answers left up to 1 ms late (hrtimer). Nil: on clock (tests).
	waits *hrtimer.Clock
}

// NewMaxRate returns the hello server answering rate requests per second at most.
func NewMaxRate(rate float64) *MaxRate {
	return &MaxRate{Queue: NewQueue(rate), clock: engine.RealClock{}, waits: hrtimer.New()}
}

// Serve answers hello on ln as Serve does, each answer held until its due time; it stops the
// server's clock when it returns.
func (m *MaxRate) Serve(ctx context.Context, ln net.Listener) error {
	if m.waits != nil {
		defer m.waits.Close()
	}
	return rawhttp.Serve(ctx, ln, m.answer)
}

// answer is hello's answer, written once its due time has come. A wait that wakes late is not
// caught up: the next due times stay where the schedule puts them, and answers due together
// leave together.
func (m *MaxRate) answer(ctx context.Context, req rawhttp.Request, a *rawhttp.Answer) {
	due := m.Queue.Due(m.clock.Now())
	if m.waits != nil {
		m.waits.Until(ctx, due)
	} else if wait := due.Sub(m.clock.Now()); wait > 0 {
		m.clock.Sleep(wait)
	}
	answer(ctx, req, a)
}
