package engine

import (
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// maxNap bounds one wait of the pacer so that a stopped run is noticed quickly even at low rates.
const maxNap = 100 * time.Millisecond

// lateAfter is how far behind its intended start a request may be sent before it counts as late.
// It matches the timer accuracy wrk2 documents (about 1 ms).
const lateAfter = time.Millisecond

// Pacer hands out intended start times in an open loop. The run's schedule is evenly spaced at
// 1/R: its j-th request is due at j/R, and belongs to connection j mod C of the C connections
// (wrk2 gives each connection one request every C/R seconds, connection k shifted by k/R, so no
// remainder is dropped). A pacer hands out the share of some of those connections, in order:
// one connection's (NewPacer), a thread's (its connections k, k+T, k+2T, ...), or the whole
// run's, which connections then take from as they come free. Intended times never move when the
// server is slow: a late request shifts nothing after it. Taking is safe from several
// goroutines at once.
//
// With Poisson arrivals (usePoisson) the share's requests come instead at exponentially
// distributed gaps, independently of each other, at the share's part of the rate; the shares'
// processes together are then a Poisson process at the run's rate.
type Pacer struct {
	clock  Clock
	start  time.Time
	per    float64 // ns between two requests of the whole run
	first  int64   // the first connection of the share
	stride int64   // between two connections of the share
	count  int64   // connections in the share
	conns  int64   // connections of the whole run
	n      atomic.Int64
	random *poisson // nil: evenly spaced
}

// poisson is a share's Poisson process: the next intended start, drawn from a seeded source so
// that a run's schedule is the same each time it is drawn.
type poisson struct {
	mu           sync.Mutex
	rng          *rand.Rand
	mean         float64 // ns between two of the share's requests on average
	next         float64 // ns after the start of the next request not taken
	seed, stream uint64  // what rng was made from: scheduled draws the schedule again
}

// usePoisson makes p's share a Poisson process at its part of the rate, drawn from seed and
// stream (the generator's: its agent index).
func (p *Pacer) usePoisson(seed, stream uint64) { p.random = p.newPoisson(seed, stream) }

// newPoisson returns p's share of a Poisson schedule of seed and stream, from its beginning: its
// first request is due after a gap of its own, as in a process that began at start.
func (p *Pacer) newPoisson(seed, stream uint64) *poisson {
	q := &poisson{rng: rand.New(rand.NewPCG(seed, stream<<32|uint64(p.first))),
		mean: p.per * float64(p.conns) / float64(p.count), seed: seed, stream: stream}
	q.next = q.gap()
	return q
}

// gap draws the time to the next request, in ns.
func (q *poisson) gap() float64 { return q.rng.ExpFloat64() * q.mean }

// draw returns the next request's start, in ns after the share's start, and moves past it; the
// caller holds q.mu when others may draw.
func (q *poisson) draw() float64 {
	at := q.next
	q.next += q.gap()
	return at
}

// firstAt returns the index of the even share's first intended start at or after t, found by
// bisection (At rises with its index).
func (p *Pacer) firstAt(t time.Time) int64 {
	hi := int64(1)
	for p.At(hi - 1).Before(t) {
		hi *= 2
	}
	return int64(sort.Search(int(hi), func(i int) bool { return !p.At(int64(i)).Before(t) }))
}

// Scheduled counts the share's intended starts in [from, end): the requests its schedule offered
// then, whether or not they could be sent. An even share finds them by bisection; a Poisson one
// draws its schedule again from its seed, so it may run while the share is in use.
func (p *Pacer) Scheduled(from, end time.Time) int64 {
	if p.random == nil {
		return p.firstAt(end) - p.firstAt(from)
	}
	var n int64
	q := p.newPoisson(p.random.seed, p.random.stream)
	for {
		at := p.start.Add(time.Duration(q.draw()))
		if !at.Before(end) {
			return n
		}
		if !at.Before(from) {
			n++
		}
	}
}

// take hands out the share's next intended start.
func (p *Pacer) take() time.Time {
	if p.random == nil {
		return p.At(p.n.Add(1) - 1)
	}
	q := p.random
	q.mu.Lock()
	at := q.draw()
	q.mu.Unlock()
	p.n.Add(1)
	return p.start.Add(time.Duration(at))
}

// head returns the share's next intended start without taking it.
func (p *Pacer) head() time.Time {
	if p.random == nil {
		return p.At(p.n.Load())
	}
	q := p.random
	q.mu.Lock()
	defer q.mu.Unlock()
	return p.start.Add(time.Duration(q.next))
}

// NewPacer returns the pacer of connection k (0-based) of conns, at a total rate per second.
func NewPacer(clock Clock, start time.Time, rate float64, conn, conns int) *Pacer {
	return newSharePacer(clock, start, rate, conn, 1, 1, conns)
}

// newSharePacer returns the pacer of count connections of conns, first, first+stride, ..., at a
// total rate per second. With first 0, stride 1 and count conns it is the whole run's schedule.
func newSharePacer(clock Clock, start time.Time, rate float64, first, stride, count, conns int) *Pacer {
	return &Pacer{
		clock:  clock,
		start:  start,
		per:    float64(time.Second) / rate,
		first:  int64(first),
		stride: int64(stride),
		count:  int64(max(count, 1)),
		conns:  int64(conns),
	}
}

// At returns the intended start of the share's i-th request in its even schedule.
func (p *Pacer) At(i int64) time.Time {
	round, k := i/p.count, i%p.count
	j := round*p.conns + p.first + k*p.stride
	return p.start.Add(time.Duration(float64(j) * p.per))
}

// Next takes the next intended start and waits until it comes; ok is false when that start would
// be at or after end, or when stop reports true while waiting.
func (p *Pacer) Next(end time.Time, stop func() bool) (intended time.Time, ok bool) {
	intended = p.take()
	if !intended.Before(end) {
		return intended, false
	}
	for {
		wait := intended.Sub(p.clock.Now())
		if wait <= 0 {
			return intended, true
		}
		if stop() {
			return intended, false
		}
		p.clock.Sleep(min(wait, maxNap))
	}
}

// peek returns the next intended start without taking it; ok is false when it would be at or
// after end.
func (p *Pacer) peek(end time.Time) (intended time.Time, ok bool) {
	intended = p.head()
	return intended, intended.Before(end)
}

// skip takes the start peek returned.
func (p *Pacer) skip() {
	if p.random == nil {
		p.n.Add(1)
		return
	}
	p.take()
}
