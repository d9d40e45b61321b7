package engine

import (
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
type Pacer struct {
	clock  Clock
	start  time.Time
	per    float64 // ns between two requests of the whole run
	first  int64   // the first connection of the share
	stride int64   // between two connections of the share
	count  int64   // connections in the share
	conns  int64   // connections of the whole run
	n      atomic.Int64
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

// At returns the intended start of the share's i-th request.
func (p *Pacer) At(i int64) time.Time {
	round, k := i/p.count, i%p.count
	j := round*p.conns + p.first + k*p.stride
	return p.start.Add(time.Duration(float64(j) * p.per))
}

// Next takes the next intended start and waits until it comes; ok is false when that start would
// be at or after end, or when stop reports true while waiting.
func (p *Pacer) Next(end time.Time, stop func() bool) (intended time.Time, ok bool) {
	intended = p.At(p.n.Add(1) - 1)
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
	intended = p.At(p.n.Load())
	return intended, intended.Before(end)
}

// skip takes the start peek returned.
func (p *Pacer) skip() { p.n.Add(1) }
