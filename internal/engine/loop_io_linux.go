package engine

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/iobench/iobench/internal/httpload"
)

// start decides a connection's next request, as the goroutine engine's connection loop does:
// in an open loop its next intended start (now, or a timer), in a closed loop now, while the
// duration and this thread's -n share last.
func (l *loop) start(c *loopConn, now time.Time) {
	r := l.r
	c.phase = phIdle
	if c.pacer != nil {
		intended, ok := c.pacer.take(r.end)
		if !ok {
			l.finish(c)
			return
		}
		c.intended, c.counted = intended, !intended.Before(r.measure)
		if intended.After(now) {
			c.phase = phPacing
			l.setTimer(c, intended)
			return
		}
		l.send(c, now)
		return
	}
	if !now.Before(r.end) {
		l.finish(c)
		return
	}
	c.intended, c.counted = time.Time{}, !now.Before(r.measure)
	if c.counted && l.tickets >= 0 {
		if l.tickets == 0 {
			l.finish(c)
			return
		}
		l.tickets--
	}
	l.send(c, now)
}

// send writes the request on c, connecting first when c has no socket.
func (l *loop) send(c *loopConn, now time.Time) {
	if c.fd < 0 {
		l.connect(c, now)
		return
	}
	c.sent, c.arrived = now, 0
	if c.intended.IsZero() {
		c.intended = now
	}
	c.wrote = 0
	c.p.Begin(l.head)
	c.phase = phWriting
	l.setDeadline(c, now)
	l.write(c)
}

// connect starts a non-blocking connect and registers the socket with epoll, once for its life.
func (l *loop) connect(c *loopConn, now time.Time) {
	fd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.connectFailed(c, now)
		return
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if l.co != nil {
		stamp(fd)
	}
	if err := unix.Connect(fd, l.sa); err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
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
	c.p.Reset()
	c.phase = phConnecting
	l.setDeadline(c, now)
}

// connected checks the outcome of a connect that epoll reported writable.
func (l *loop) connected(c *loopConn) {
	now := l.r.clock.Now()
	if errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || errno != 0 {
		l.closeConn(c)
		l.connectFailed(c, now)
		return
	}
	l.send(c, now)
}

// connectFailed counts a connect error and pauses the connection, as the goroutine engine does.
func (l *loop) connectFailed(c *loopConn, now time.Time) {
	l.r.fail(l.g, c.counted, c.intended, classIndex(ErrConnect))
	c.phase = phPause
	l.setTimer(c, now.Add(l.r.cfg.ConnectWait))
}

// write writes what is left of the request; the rest waits for EPOLLOUT.
func (l *loop) write(c *loopConn) {
	req := l.r.cfg.Request
	for c.wrote < len(req) {
		if !c.writable {
			return
		}
		n, again, err := retry(unix.SYS_WRITE, c.fd, req[c.wrote:])
		if err != nil {
			l.ended(c, httpload.Response{}, &httpload.Error{Class: httpload.Write, Err: err})
			return
		}
		c.writable = !again
		c.wrote += n
	}
	c.phase = phReading
	l.read(c)
}

// read parses what is buffered and reads while the response is incomplete and the socket has
// bytes. A read that does not fill the buffer drained the socket, so no EAGAIN read is needed.
func (l *loop) read(c *loopConn) {
	for {
		done, err := c.p.Parse()
		if err == nil && done {
			err = c.p.Leftover()
		}
		if err != nil || done {
			l.ended(c, c.p.Response(), failure(err))
			return
		}
		if !c.readable {
			return
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
			return
		case err != nil:
			l.ended(c, httpload.Response{}, httpload.Fail(err))
			return
		case n == 0: // the peer closed: complete only when the close delimited the body
			_, err := c.p.EOF()
			c.hup = true
			l.ended(c, c.p.Response(), failure(err))
			return
		}
		if !c.p.Wrote(n) && !c.hup {
			c.readable = false
		}
	}
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

// ended ends the request in flight on c with resp or err, now (or when its answer arrived, when
// the loop stamps its reads).
func (l *loop) ended(c *loopConn, resp httpload.Response, err error) {
	now := l.r.clock.Now()
	l.end(c, outcome{resp: resp, err: err, intended: c.intended, sent: c.sent, done: answeredAt(c, now), counted: c.counted}, now)
}

// failure classifies a parser error; nil stays nil without an interface conversion.
func failure(err error) error {
	if err == nil {
		return nil
	}
	return httpload.Fail(err)
}

// end accounts a request's outcome (run.account, shared with the goroutine engine), closes the
// socket unless it may carry another request, and starts the next one, now.
func (l *loop) end(c *loopConn, o outcome, now time.Time) {
	keep, answered := l.r.account(l.g, o)
	if answered {
		c.answered++
	} else {
		c.unanswered++
	}
	if !keep || c.hup {
		l.closeConn(c)
	}
	c.phase = phIdle
	l.start(c, now)
}

func (l *loop) closeConn(c *loopConn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // closing also removes it from the epoll set
		c.fd = -1
	}
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
		if c.phase == phWriting || c.phase == phReading {
			c.unanswered++
		}
		l.closeConn(c)
		s := &l.r.slots[c.k]
		s.mu.Lock()
		s.answered, s.unanswered = c.answered, c.unanswered
		s.mu.Unlock()
	}
}
