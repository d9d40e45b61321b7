package engine

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/iobench/iobench/internal/httpload"
)

// fill starts as many requests as c may have in flight and writes them. In a closed loop that is
// up to the pipeline depth at once (one while c has no socket, so that a refused connect fails
// once, as without pipelining), while the duration and this thread's -n share last. In an open
// loop c joins the connections with room (one the server closed between requests joins those
// to open again) and the thread's schedule hands out what is due (see sched). A connection with
// nothing left to send and nothing in flight finishes.
func (l *loop) fill(c *loopConn, now time.Time) {
	if l.pacer != nil {
		if c.phase == phOpen && c.hup && l.inFlight(c) == 0 { // closed by the server between requests
			l.closeConn(c)
		}
		l.offer(c, l.ns(now))
		l.dispatch(now)
		if c.phase != phFinished && (c.done || c.phase == phOpen) {
			l.flush(c, now)
		}
		l.openSpares(now)
		return
	}
	depth := l.depth
	if c.phase != phOpen {
		depth = 1
	}
	for l.inFlight(c) < depth && l.next(c, now) {
	}
	l.flush(c, now)
}

// flush writes what c has queued (or connects it to), or finishes it when it is done and has
// nothing in flight.
func (l *loop) flush(c *loopConn, now time.Time) {
	switch {
	case l.inFlight(c) == 0 && c.done:
		if c.h2 != nil && c.phase == phOpen { // what it still owes the server (a RST_STREAM), once, whatever comes of it
			retry(unix.SYS_WRITE, c.fd, c.h2.out[c.h2.sent:])
		}
		l.finish(c)
	case c.phase == phOpen && c.h2 != nil:
		l.h2write(c, now)
	case c.phase == phOpen:
		l.write(c)
	case c.fd < 0 && c.inflight.n > 0:
		l.connect(c, now)
	}
}

// inFlight counts c's requests started and not ended: queued, written or on a stream.
func (l *loop) inFlight(c *loopConn) int {
	if c.h2 != nil {
		return c.inflight.n + c.h2.active
	}
	return c.inflight.n
}

// next queues c's next request of a closed loop and reports whether it did; it sets c.done when
// c is to start no more.
func (l *loop) next(c *loopConn, now time.Time) bool {
	r := l.r
	if c.done {
		return false
	}
	if !now.Before(r.end) {
		c.done = true
		return false
	}
	counted := !now.Before(r.measure)
	if counted && l.tickets >= 0 {
		if l.tickets == 0 {
			c.done = true
			return false
		}
		l.tickets--
	}
	l.push(c, inflight{intended: l.ns(now), sent: l.ns(now), counted: counted})
	return true
}

// push queues a request on c, to be written; the first in flight gets the parser and the timer.
func (l *loop) push(c *loopConn, q inflight) {
	if c.inflight.n == 0 {
		c.p.Begin(l.head)
		if c.phase == phOpen {
			l.dueBy(c, q.sent+int64(l.r.cfg.Timeout))
		}
	}
	c.inflight.push(q)
	c.unsent++
}

// dueBy makes c's timer come due by at (nanoseconds since the run's start). A timer already due
// earlier stays: when it fires, expire looks at what is due then and sets it anew, so a request
// costs no heap work in a closed loop.
func (l *loop) dueBy(c *loopConn, at int64) {
	if c.slot < 0 || c.due > at {
		l.timers.set(c, at)
	}
}

// connect starts a non-blocking connect (over TLS: a bridged one, see bridge) and registers the
// socket with epoll, once for its life.
func (l *loop) connect(c *loopConn, now time.Time) {
	dial := l.dialTCP
	if l.r.cfg.TLS != nil {
		dial = l.dialBridge
	}
	fd, err := dial()
	if err != nil {
		l.connectFailed(c, now)
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.idx}
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		l.connectFailed(c, now)
		return
	}
	c.fd, c.readable, c.writable, c.hup = fd, false, false, false
	c.phase = phConnecting
	l.connecting++
	c.deadline = int64(now.Sub(l.r.start) + l.r.cfg.Timeout)
	l.dueBy(c, c.deadline)
}

// dialTCP starts a non-blocking TCP connect to the target.
func (l *loop) dialTCP() (int, error) {
	fd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if l.co != nil {
		stamp(fd)
	}
	if err := unix.Connect(fd, l.sa); err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// connected checks the outcome of a connect that epoll reported writable (over TLS, of the
// bridge's dial: see bridged). As in wrk, a closed loop's requests queued during the connect are
// sent now: their latency leaves the connect out.
func (l *loop) connected(c *loopConn) {
	now := l.r.clock.Now()
	ok := true
	if l.r.cfg.TLS != nil {
		var pending bool
		if ok, pending = l.bridged(c); pending {
			return
		}
	} else if errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || errno != 0 {
		ok = false
	}
	if !ok {
		l.closeConn(c)
		l.connectFailed(c, now)
		return
	}
	c.phase = phOpen
	l.connecting--
	if c.h2 != nil {
		l.h2open(c)
	}
	for i := 0; i < c.inflight.n; i++ {
		q := c.inflight.at(i)
		q.sent = l.ns(now)
		q.waited = q.sent-q.intended > int64(lateAfter) // waited for the connect
	}
	if c.inflight.n > 0 {
		l.dueBy(c, int64(now.Sub(l.r.start)+l.r.cfg.Timeout))
	}
	l.fill(c, now)
}

// connectFailed counts a connect error for each request queued on c (one in a closed loop) and
// pauses the connection, as the goroutine engine does.
func (l *loop) connectFailed(c *loopConn, now time.Time) {
	for c.inflight.n > 0 {
		q := c.inflight.pop()
		l.r.fail(l.g, q.counted, l.r.start.Add(time.Duration(q.intended)), classIndex(ErrConnect))
	}
	c.unsent, c.wrote = 0, 0
	c.phase = phPause
	l.timers.set(c, int64(now.Add(l.r.cfg.ConnectWait).Sub(l.r.start)))
	if l.pacer != nil { // a connect's place is free: a due request, or else a spare, takes it
		l.dispatch(now)
		l.openSpares(now)
	}
}

// serve moves an open connection on: writes what is queued, reads what came.
func (l *loop) serve(c *loopConn) {
	if c.h2 != nil {
		if l.h2flush(c) {
			l.h2read(c)
		}
		return
	}
	if l.write(c) {
		l.read(c)
	}
}

// write writes what is left of c's queued requests (one system call for all of them, as the
// loop's batch holds depth copies of the request); the rest waits for EPOLLOUT. It reports
// false when the write failed and ended the connection.
func (l *loop) write(c *loopConn) bool {
	size := len(l.r.cfg.Request)
	for c.unsent > 0 {
		if !c.writable {
			return true
		}
		n, again, err := retry(unix.SYS_WRITE, c.fd, l.batch[c.wrote:c.unsent*size])
		if err != nil {
			l.broken(c, &httpload.Error{Class: httpload.Write, Err: err}, l.r.clock.Now())
			return false
		}
		c.writable = !again
		c.wrote += n
		c.unsent -= c.wrote / size
		c.wrote %= size
	}
	return true
}

// read parses what is buffered and reads while responses are due and the socket has bytes, ending
// each request whose response is complete; then it starts the requests that may follow. A read
// that does not fill the buffer drained the socket, so no EAGAIN read is needed.
func (l *loop) read(c *loopConn) {
	for c.inflight.n > 0 {
		done, err := c.p.Parse()
		if err == nil && done {
			err = c.p.Leftover()
		}
		if err != nil || done {
			if !l.ended(c, c.p.Response(), failure(err)) {
				return
			}
			continue
		}
		if !c.readable {
			break
		}
		space, err := c.p.Space()
		if err != nil {
			l.ended(c, httpload.Response{}, httpload.Fail(err))
			return
		}
		n, again, err := l.readInto(c, space)
		switch {
		case again:
			c.readable = false
		case err != nil:
			l.ended(c, httpload.Response{}, httpload.Fail(err))
			return
		case n == 0: // the peer closed: complete only when the close delimited the body
			_, err := c.p.EOF()
			c.hup = true
			l.ended(c, c.p.Response(), failure(err))
			return
		default:
			if !c.p.Wrote(n) && !c.hup {
				c.readable = false
			}
		}
	}
	if c.inflight.n <= l.refill(c) {
		l.fill(c, l.r.clock.Now())
	}
}

// refill is how few requests a connection has in flight when read starts more: any free place
// in an open loop (a request is due at its own time), without pipelining, or once it starts no
// more. In a closed loop, answers are replaced in batches, so that each write (and the server's
// read) carries many requests: pipelined N deep, once N/4 or fewer are left (writes of 3N/4 or
// more; wrk writes N once all N are answered); over HTTP/2, once a quarter of the M streams are
// free, so at least 3M/4 stay open.
func (l *loop) refill(c *loopConn) int {
	switch {
	case l.pacer != nil || l.depth == 1 || c.done:
		return l.depth - 1
	case c.h2 != nil:
		return l.depth - max(1, l.depth/4)
	}
	return l.depth / 4
}

// readInto reads c's socket into space, stamped when the loop coalesces.
func (l *loop) readInto(c *loopConn, space []byte) (int, bool, error) {
	if l.co != nil && len(space) > 0 {
		return l.readStamped(c, space)
	}
	return retry(unix.SYS_READ, c.fd, space)
}

// retry reads or writes fd (trap is SYS_READ or SYS_WRITE) until no signal interrupts it; again
// reports EAGAIN. The sockets are non-blocking, so the call returns at once: it is made raw,
// without telling the scheduler, which saves the runtime's bookkeeping around every system call
// (entersyscall, exitsyscall) on both system calls of every request.
func retry(trap uintptr, fd int, b []byte) (n int, again bool, err error) {
	if len(b) == 0 {
		return 0, false, nil // what a read or write of nothing returns
	}
	switch n, errno := httpload.RawCall(trap, uintptr(fd), b); errno {
	case 0:
		return n, false, nil
	case unix.EAGAIN:
		return 0, true, nil
	default:
		return 0, false, errno
	}
}

// ended ends c's oldest request with resp or err, now (or when its answer arrived, when the loop
// stamps its reads), and reports whether c stays open. A connection that may not carry another
// request is closed, and the requests still in flight on it end as ErrInFlight; when it stays
// open the parser turns to the next response. It starts no request: read does, after its batch.
func (l *loop) ended(c *loopConn, resp httpload.Response, err error) bool {
	now := l.r.clock.Now()
	done := answeredAt(c, l.r.start.Add(time.Duration(c.inflight.at(0).sent)), now)
	l.freeing(c, done)
	q := c.inflight.pop()
	c.unsent = min(c.unsent, c.inflight.n)
	keep, answered := l.r.account(l.g, l.outcome(q, resp, err, done))
	if answered {
		c.answered++
	} else {
		c.unanswered++
	}
	if !keep || c.hup {
		l.abandon(c, now)
		l.fill(c, now)
		return false
	}
	if c.inflight.n > 0 {
		c.p.Begin(l.head)
	}
	return true
}

// freeing notes, as one of c's requests ends with its answer arrived at done, that an open loop
// starved of connections had room again at done: a loop that reads the answer late is then late
// itself, not waiting for a connection.
func (l *loop) freeing(c *loopConn, done time.Time) {
	if l.pacer != nil && !c.hup {
		l.roomAgain(l.ns(done))
	}
}

// broken ends c after a failure of its socket (err: a write error, a timeout): the oldest request
// in flight is charged with err, the others end as ErrInFlight; then c starts anew.
func (l *loop) broken(c *loopConn, err error, now time.Time) {
	if c.h2 != nil {
		l.h2broken(c, err, now)
	} else if c.inflight.n > 0 {
		q := c.inflight.pop()
		l.r.account(l.g, l.outcome(q, httpload.Response{}, err, now))
		c.unanswered++
	}
	l.abandon(c, now)
	l.fill(c, now)
}

// abandon closes c and ends every request still in flight on it as ErrInFlight: written, or
// queued behind one that was, they are neither answered nor lost silently.
func (l *loop) abandon(c *loopConn, now time.Time) {
	if c.h2 != nil {
		l.h2abandon(c, now)
		l.closeConn(c)
		return
	}
	for c.inflight.n > 0 {
		q := c.inflight.pop()
		l.r.account(l.g, l.outcome(q, httpload.Response{}, errInFlight, now))
		c.unanswered++
	}
	c.unsent, c.wrote = 0, 0
	l.closeConn(c)
}

// failure classifies a parser error; nil stays nil without an interface conversion.
func failure(err error) error {
	if err == nil {
		return nil
	}
	return httpload.Fail(err)
}

// closeConn closes c's socket, if open, and drops what its parser had buffered.
func (l *loop) closeConn(c *loopConn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // closing also removes it from the epoll set
		c.fd = -1
	}
	if c.phase == phConnecting {
		l.connecting--
	}
	c.p.Reset()
	c.phase = phIdle
}

// finish ends a connection: it sends nothing more.
func (l *loop) finish(c *loopConn) {
	l.timers.clear(c)
	l.closeConn(c)
	c.phase = phFinished
	l.live--
}

// tally closes what is left when the loop ends and hands each connection's counts of answered and
// unanswered requests to its slot; a request in flight at a stop had no answer.
func (l *loop) tally() {
	for i := range l.conns {
		c := &l.conns[i]
		switch {
		case c.phase == phOpen && c.h2 != nil: // the requests waiting for a stream were not sent
			c.unanswered += int64(c.h2.active)
		case c.phase == phOpen:
			c.unanswered += int64(c.inflight.n)
		}
		l.closeConn(c)
		s := &l.r.slots[c.k]
		s.mu.Lock()
		s.answered, s.unanswered = c.answered, c.unanswered
		s.mu.Unlock()
	}
	if l.r.cfg.HTTP2 {
		l.g.addH2(&l.h2s)
	}
}
