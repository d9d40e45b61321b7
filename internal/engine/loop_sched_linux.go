package engine

import "time"

// sched is an open loop's schedule on one thread, shared by the thread's connections as a pool:
// each request, when it comes due, goes to the connection freed last (as client pools such as Go's
// http.Transport reuse the most recently used connection). A request waits for a connection only
// when none of the thread's has room, so that a slow answer on one connection delays nobody while
// others are free; wrk2 instead gives each connection a schedule of its own, and there a request
// waits whenever its own connection's last answer is late, which reads a stall of the service as
// too few connections. Taking the connection freed last keeps the pool's busy part as small as
// the load needs (node's http server at 40,000 req/s, -c 800: p99 2.9-3.2 ms taking the last
// freed, 4.7-22.5 ms taking each connection in turn; 1.0-1.25 ms with -c 100).
//
// The loop opens all its connections from its start, at most maxConnecting connects at a time:
// the service has -c connections, whatever the load did before, as under wrk2. One the server
// closes (an idle timeout) opens again when a request needs it, as a client pool's would.
// (Opening each only when first needed left the count to chance: a connect takes longer than the
// time between two requests at a high rate, so each request due meanwhile opened one more, and a
// stall of the service opened hundreds, whose cost to the service then stayed.) A request due
// while no open connection has room takes one still without a socket, within the same bound, so
// that a refused connect fails it as a connect error.
type sched struct {
	pacer      *Pacer  // the thread's share of the run's schedule; nil in a closed loop
	free       []int32 // a stack of the open connections with room for a request, the one freed last on top
	spare      []int32 // a stack of the connections without a socket, to open when a request needs one
	connecting int     // connects in progress
	set        bool    // setup has offered every connection: openSpares may begin
	filled     bool    // every connection was opened once: spares now open only for a request
	wakeAt     int64   // the next request's intended start, while the schedule waits for it
	starved    bool    // a request is due and no connection has room for it
	freed      int64   // when a connection last had room after none had
	over       bool    // the schedule has ended: no request comes due any more
	dispatches bool    // dispatch is running (a failed write may call it again)
}

// initSched gives an open loop its share of the run's schedule: its connections are k, k+T,
// k+2T, ... of the run's (executeLoop deals them round robin over T threads), so their requests
// keep their places in the run's evenly spaced schedule (or, with Poisson arrivals, the threads'
// processes merge into the run's).
func (l *loop) initSched() {
	cfg := &l.r.cfg
	if cfg.Rate <= 0 || len(l.conns) == 0 {
		return
	}
	l.pacer = l.r.sharePacer(l.conns[0].k, len(l.r.groups), len(l.conns))
	l.free = make([]int32, 0, len(l.conns)) // each connection is on one of them at most once: no growth
	l.spare = make([]int32, 0, len(l.conns))
}

// maxConnecting is the most connects a thread's open loop has in progress at once: a few times
// what a burst needs on loopback, where a connect takes tens of microseconds, and far below the
// listen queue of common servers (Python's asyncio 100, nginx and Node 511).
const maxConnecting = 16

// room reports whether c may take one more request of the schedule: one to connect with while
// it has no socket; once open, as many as it keeps in flight (over HTTP/2, as many streams as the
// server allows, and none after its GOAWAY); none while it connects, pauses or closes.
func (l *loop) room(c *loopConn) bool {
	switch {
	case c.done:
		return false
	case c.phase == phIdle:
		return c.inflight.n == 0
	case c.phase != phOpen || c.hup:
		return false
	case c.h2 != nil:
		return !c.h2.goaway && l.inFlight(c) < c.h2.limit
	}
	return c.inflight.n < l.depth
}

// offer queues c among the connections with room, if it has room and is not queued yet: on free
// when open, on spare when it has no socket. A loop that was starved has room again from at
// (nanoseconds since the run's start).
func (l *loop) offer(c *loopConn, at int64) {
	if c.offered || !l.room(c) {
		return
	}
	c.offered = true
	if c.phase == phIdle {
		l.spare = append(l.spare, c.idx)
	} else {
		l.free = append(l.free, c.idx)
	}
	l.roomAgain(at)
}

// roomAgain notes that a connection has room from at, ending a starved spell.
func (l *loop) roomAgain(at int64) {
	if l.starved {
		l.starved = false
		l.freed = at
	}
}

// take returns the open connection that got room last; else, while fewer than maxConnecting
// connects are in progress, one without a socket, to open; else nil.
func (l *loop) take() *loopConn {
	if c := l.pop(&l.free); c != nil || l.connecting >= maxConnecting {
		return c
	}
	return l.pop(&l.spare)
}

// openSpares connects the loop's connections that were never opened, while fewer than
// maxConnecting connects are in progress and the schedule has not ended.
func (l *loop) openSpares(now time.Time) {
	for l.set && !l.filled && l.connecting < maxConnecting && !l.over {
		c := l.pop(&l.spare)
		if c == nil {
			l.filled = true
			return
		}
		l.connect(c, now)
	}
}

// pop takes connections off stack until one still has room, and returns it, or nil.
func (l *loop) pop(stack *[]int32) *loopConn {
	for n := len(*stack); n > 0; n = len(*stack) {
		c := &l.conns[(*stack)[n-1]]
		*stack = (*stack)[:n-1]
		c.offered = false
		if l.room(c) {
			return c
		}
	}
	return nil
}

// dispatch gives each request that has come due by now to a connection with room, oldest first,
// and sends it. When no connection has room the rest wait, starved, until one has; a request
// sent more than lateAfter after its intended start then counts as having waited for a
// connection when the loop had none free at that start, and as late (the generator's delay)
// when it had. When the next request is not due yet, wakeAt holds its intended start.
func (l *loop) dispatch(now time.Time) {
	if l.dispatches {
		return
	}
	l.dispatches = true
	var last *loopConn // given requests not written yet: a connection's due requests go out in one write
	defer func() {
		if last != nil {
			l.flush(last, now)
		}
		l.dispatches = false
	}()
	r := l.r
	for !l.over {
		intended, ok := l.pacer.peek(r.end)
		if !ok {
			l.endSchedule(now)
			return
		}
		if intended.After(now) {
			l.wakeAt = l.ns(intended)
			return
		}
		c := l.take()
		if c == nil {
			l.starved = true
			return
		}
		if last != nil && last != c {
			l.flush(last, now)
		}
		last = c
		l.pacer.skip()
		at := l.ns(intended)
		waited := c.phase != phOpen || l.freed-at > int64(lateAfter)
		l.push(c, inflight{intended: at, sent: l.ns(now), counted: !intended.Before(r.measure), waited: waited})
		l.offer(c, l.ns(now)) // pipelined or on streams: room for more, and taken first
	}
}

// endSchedule marks every connection done once the schedule has ended: each finishes when its
// last request has ended.
func (l *loop) endSchedule(now time.Time) {
	l.over = true
	for i := range l.conns {
		c := &l.conns[i]
		if c.phase == phFinished || c.done {
			continue
		}
		c.done = true
		if l.inFlight(c) == 0 {
			l.flush(c, now)
		}
	}
}

// dueIn dispatches what the schedule has due by now and returns the time until its next request,
// or maxNap when it waits for none: a closed loop, a starved or ended schedule.
func (l *loop) dueIn(now time.Time, elapsed int64) time.Duration {
	if l.pacer == nil || l.over || l.starved {
		return maxNap
	}
	if l.wakeAt <= elapsed {
		l.dispatch(now)
		if l.over || l.starved {
			return maxNap
		}
	}
	return time.Duration(l.wakeAt - elapsed)
}
