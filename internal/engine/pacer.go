package engine

import (
	"time"
)

// maxNap bounds one wait of the pacer so that a stopped run is noticed quickly even at low rates.
const maxNap = 100 * time.Millisecond

// lateAfter is how far behind its intended start a request may be sent before it counts as late.
// It matches the timer accuracy wrk2 documents (about 1 ms).
const lateAfter = time.Millisecond

// Pacer hands one connection its intended start times in an open loop. A total rate R over C
// connections gives each connection one request every C/R seconds, connection k shifted by k/R, so
// the merged schedule is evenly spaced at 1/R and no remainder is dropped. Intended times never
// move when the server is slow: a late request shifts nothing after it.
type Pacer struct {
	clock    Clock
	start    time.Time
	offset   float64 // ns
	interval float64 // ns
	n        int64
}

// NewPacer returns the pacer of connection k (0-based) of conns, at a total rate per second.
func NewPacer(clock Clock, start time.Time, rate float64, conn, conns int) *Pacer {
	per := float64(time.Second) / rate // ns between two requests of the whole run
	return &Pacer{
		clock:    clock,
		start:    start,
		offset:   per * float64(conn),
		interval: per * float64(conns),
	}
}

// At returns the intended start of the connection's i-th request.
func (p *Pacer) At(i int64) time.Time {
	return p.start.Add(time.Duration(p.offset + float64(i)*p.interval))
}

// Next waits until the next intended start and returns it; ok is false when that start would be at
// or after end, or when stop reports true while waiting.
func (p *Pacer) Next(end time.Time, stop func() bool) (intended time.Time, ok bool) {
	if intended, ok = p.take(end); !ok {
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

// take returns the next intended start without waiting for it; ok is false when it would be at or
// after end (and then the pacer stays where it is).
func (p *Pacer) take(end time.Time) (intended time.Time, ok bool) {
	if intended, ok = p.peek(end); ok {
		p.n++
	}
	return intended, ok
}

// peek returns the next intended start without taking it; ok is false when it would be at or
// after end.
func (p *Pacer) peek(end time.Time) (intended time.Time, ok bool) {
	intended = p.At(p.n)
	return intended, intended.Before(end)
}
