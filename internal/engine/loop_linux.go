package engine

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/iobench/iobench/internal/httpload"
)

// phase is where a connection of the event loop is.
type phase uint8

const (
	phIdle       phase = iota // no socket: before its first connect, after a close
	phConnecting              // non-blocking connect in progress
	phOpen                    // connected: requests in flight, or waiting for the next intended start
	phPause                   // waiting after a failed connect (Config.ConnectWait)
	phFinished                // sends no more requests
)

// loopConn is one connection of an event loop: its socket, its phase and its requests in flight.
type loopConn struct {
	k                    int   // index into run.slots, for the final tally
	idx                  int32 // index into loop.conns, the epoll event's data
	fd                   int   // -1 when closed
	phase                phase
	readable, writable   bool // edge-triggered readiness not yet used up by EAGAIN
	hup                  bool // the peer closed or the socket failed: read until EOF
	done                 bool // starts no more requests (duration over, -n share used)
	inflight             queue
	unsent               int   // the last unsent requests in flight are not fully written
	wrote                int   // bytes of the first unsent one already written
	due                  int64 // the timer, nanoseconds since the run's start
	deadline             int64 // the connect's deadline, likewise
	arrived              int64 // the kernel's receive time of the last read, when stamped
	slot                 int   // index in the loop's timers, -1 when none
	offered              bool  // on the open loop's stack of connections with room (sched.free)
	p                    httpload.Parser
	h2                   *h2conn // HTTP/2 (Config.HTTP2); nil for HTTP/1.1
	answered, unanswered int64
}

// inflight is one request of a connection without its answer yet: queued, being written, or
// written and awaiting its response.
type inflight struct {
	intended, sent int64 // nanoseconds since the run's start: a third of two time.Time's size
	counted        bool
	waited         bool // no connection had room for it at its intended start (or its own was connecting)
}

// ns is t in nanoseconds since the run's start, as inflight and the timers keep it.
func (l *loop) ns(t time.Time) int64 { return int64(t.Sub(l.r.start)) }

// outcome is how q ended: with err, or answered (resp) at done.
func (l *loop) outcome(q inflight, resp httpload.Response, err error, done time.Time) outcome {
	return outcome{resp: resp, err: err, intended: l.r.start.Add(time.Duration(q.intended)), sent: l.r.start.Add(time.Duration(q.sent)), done: done, waited: q.waited, counted: q.counted}
}

// queue is a connection's requests in flight, oldest first: a ring of the pipeline depth, made
// once, so that a request costs no allocation.
type queue struct {
	ring    []inflight
	head, n int
}

func (q *queue) push(r inflight) {
	q.ring[(q.head+q.n)%len(q.ring)] = r
	q.n++
}

func (q *queue) pop() inflight {
	r := q.ring[q.head]
	q.head = (q.head + 1) % len(q.ring)
	q.n--
	return r
}

// at returns the i-th request in flight, oldest first.
func (q *queue) at(i int) *inflight { return &q.ring[(q.head+i)%len(q.ring)] }

// loop is one -t thread of the event-loop engine: an edge-triggered epoll instance over its
// connections' non-blocking sockets, each registered once, a timer heap whose earliest entry
// bounds epoll_wait, and the thread's group of measurements. Nothing on its hot path is shared
// with the other threads, and nothing is allocated per request.
type loop struct {
	r       *run
	g       *group
	ep      int
	wake    int // eventfd that run.stop writes
	conns   []loopConn
	events  []unix.EpollEvent
	timers  timers
	tickets int64 // -n: this thread's share of the requests; -1 without -n
	live    int   // connections not finished
	sa      unix.Sockaddr
	family  int
	head    bool
	depth   int     // requests a connection keeps in flight (Config.Pipeline)
	batch   []byte  // depth copies of the request, so that queued requests go out in one write
	h2s     h2stats // what the loop's HTTP/2 connections exchanged
	h2in    []byte  // the read buffer its HTTP/2 connections share, one at a time (h2read)
	// noPwait2 is set once epoll_pwait2 answered ENOSYS (a kernel before 5.11).
	noPwait2 bool
	// co is set when the loop coalesces its wake-ups (open loop, high rate: see coalesces).
	co *coalescer
	sched
}

// errLoopTimeout is the timeout error of a request whose deadline passed in the event loop.
var errLoopTimeout = &httpload.Error{Class: httpload.Timeout, Err: errors.New("no full response before the timeout")}

// loopSupported reports why the event loop cannot run here, or nil.
func loopSupported() error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %v", err)
	}
	unix.Close(ep)
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("eventfd: %v", err)
	}
	unix.Close(fd)
	return nil
}

// executeLoop runs one event loop per thread until all their connections have finished.
func (r *run) executeLoop() (<-chan struct{}, error) {
	ta, err := net.ResolveTCPAddr("tcp", r.cfg.Target.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %v", r.cfg.Target.Addr, err)
	}
	loops := make([]*loop, len(r.groups))
	for i, g := range r.groups {
		sa, family := sockaddr(ta) // one each: Connect writes into it
		l, err := newLoop(r, g, sa, family)
		if err != nil {
			for _, l := range loops[:i] {
				l.closeFDs()
			}
			return nil, err
		}
		loops[i] = l
		r.wakeups = append(r.wakeups, l.wakeUp)
	}
	for k := range r.slots { // round robin: remainders spread one per group, as execute does
		l := loops[k%len(loops)]
		l.conns = append(l.conns, loopConn{k: k, idx: int32(len(l.conns)), fd: -1, slot: -1})
		l.g.conns++
	}
	r.shareTickets(loops)
	finished := make(chan struct{})
	done := make(chan struct{}, len(loops))
	for _, l := range loops {
		go l.run(done)
	}
	go func() {
		for range loops {
			<-done
		}
		close(finished)
	}()
	return finished, nil
}

// shareTickets splits -n over the threads in proportion to their connections, remainders
// spread, so that no thread draws from a shared counter.
func (r *run) shareTickets(loops []*loop) {
	n, c := r.cfg.Requests, int64(r.cfg.Connections)
	var cum int64
	for _, l := range loops {
		if n <= 0 {
			l.tickets = -1
			continue
		}
		before := n * cum / c
		cum += int64(len(l.conns))
		l.tickets = n*cum/c - before
	}
}

func sockaddr(ta *net.TCPAddr) (unix.Sockaddr, int) {
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		return sa, unix.AF_INET
	}
	sa := &unix.SockaddrInet6{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To16())
	return sa, unix.AF_INET6
}

func newLoop(r *run, g *group, sa unix.Sockaddr, family int) (*loop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %v", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, fmt.Errorf("eventfd: %v", err)
	}
	l := &loop{r: r, g: g, ep: ep, wake: wake, sa: sa, family: family, head: httpload.Head(r.cfg.Request)}
	l.depth = r.cfg.depth()
	l.batch = bytes.Repeat(r.cfg.Request, l.depth)
	if coalesces(&r.cfg) {
		l.co = newCoalescer()
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		l.closeFDs()
		return nil, fmt.Errorf("epoll_ctl: %v", err)
	}
	return l, nil
}

func (l *loop) closeFDs() {
	unix.Close(l.wake)
	unix.Close(l.ep)
}

// wakeUp makes the loop's epoll_wait return at once (run.stop calls it from another goroutine).
func (l *loop) wakeUp() {
	var one = [8]byte{1}
	unix.Write(l.wake, one[:])
}

// run is the thread's loop: start every connection, then wait for readiness or the next timer.
func (l *loop) run(done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	defer l.closeFDs()
	defer l.tally()
	if !l.r.cfg.StartAt.IsZero() && !l.r.sleepUntil(l.r.start) { // agents begin together (internal/agent)
		return
	}
	l.setup()
	var yielded time.Time
	for l.live > 0 && !l.r.stopped.Load() {
		timeout, now := l.fireTimers()
		yielded = yieldEvery(yielded, now)
		n, err := l.poll()
		if n == 0 && err == nil {
			if l.co != nil {
				n, err = l.settle(timeout)
			} else {
				n, err = l.wait(timeout)
			}
		}
		if err != nil && err != unix.EINTR {
			panic(fmt.Sprintf("epoll_wait: %v", err)) // EBADF or EINVAL: a bug of this loop
		}
		for _, ev := range l.events[:max(n, 0)] {
			if ev.Fd < 0 {
				var b [8]byte
				unix.Read(l.wake, b[:])
				continue
			}
			l.ready(&l.conns[ev.Fd], ev.Events)
		}
	}
}

// yieldPeriod is how often a loop lets the scheduler run it anew.
const yieldPeriod = 5 * time.Millisecond

// yieldEvery yields the processor when yieldPeriod has passed between last and now (the run's
// Clock, read by fireTimers) and returns when it last yielded. A loop never blocks in Go, so
// without it the runtime's monitor (sysmon) finds the same goroutine running for 10 ms, preempts
// it or takes its P in a system call, and for having taken one goes back to waking every 20 µs:
// thousands of wake-ups and context switches a second on the loop's core (perf stat, -t1 -c100:
// 1,400-2,200 nanosleeps a second, 1/4 to 1/3 of that with the yield). The loop is not locked to
// its OS thread for the same reason: a locked goroutine that yields hands its P to another thread
// and waits to be handed it back.
func yieldEvery(last, now time.Time) time.Time {
	if now.Sub(last) < yieldPeriod {
		return last
	}
	runtime.Gosched()
	return now
}

// setup gives every connection its parser (and pacer) and starts it.
func (l *loop) setup() {
	cfg := &l.r.cfg
	l.events = make([]unix.EpollEvent, len(l.conns)+1)
	l.live = len(l.conns)
	now := l.r.clock.Now()
	l.initSched()
	for i := range l.conns {
		c := &l.conns[i]
		c.inflight.ring = make([]inflight, l.depth)
		if cfg.HTTP2 {
			c.h2 = newH2Conn(l.depth, cfg.Expect.Body != nil)
			if l.h2in == nil {
				l.h2in = make([]byte, h2ReadBuf)
			}
		} else {
			c.p.Init(initialParserBuf)
		}
		c.p.SetKeepBody(cfg.Expect.Body != nil)
		if cfg.Timing != "" {
			c.p.CaptureHeader(TimingHeader)
		}
		l.fill(c, now)
	}
	if l.pacer != nil {
		l.set = true
		l.openSpares(now)
	}
}

// poll takes the events already there without blocking, by a raw system call: under load it
// usually finds some, and then the scheduler never sees the thread enter a blocking call (which
// would make it wake its monitor thread to take the P back).
func (l *loop) poll() (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// initialParserBuf is a connection's first read buffer, as httpload's own.
const initialParserBuf = 4 << 10

// wait blocks in epoll until an event or the timeout: epoll_pwait2, to the nanosecond, where the
// kernel has it (5.11), else epoll_wait, whose milliseconds are rounded up, so that an intended
// start is never early but may be up to a millisecond late.
func (l *loop) wait(timeout time.Duration) (int, error) {
	if !l.noPwait2 {
		ts := unix.NsecToTimespec(int64(timeout))
		n, _, errno := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
		if errno != unix.ENOSYS {
			if errno != 0 {
				return 0, errno
			}
			return int(n), nil
		}
		l.noPwait2 = true
	}
	return unix.EpollWait(l.ep, l.events, int((timeout+time.Millisecond-1)/time.Millisecond))
}

// fireTimers runs every timer that is due, the open loop's schedule's included, and returns the
// time until the next one, the timeout of the wait (at most maxNap, so a clock that jumps is
// noticed), and the time it read last.
func (l *loop) fireTimers() (time.Duration, time.Time) {
	for {
		now := l.r.clock.Now()
		elapsed := int64(now.Sub(l.r.start))
		wait := min(l.dueIn(now, elapsed), maxNap)
		if l.timers.len() == 0 {
			return wait, now
		}
		c := l.timers.top()
		if w := c.due - elapsed; w > 0 {
			return min(time.Duration(w), wait), now
		}
		l.timers.clear(c)
		l.expire(c, now)
	}
}

// expire handles a connection whose timer came due: a connect or the oldest request past its
// deadline fails; otherwise the connection starts what is due and its timer is set again.
func (l *loop) expire(c *loopConn, now time.Time) {
	at := int64(now.Sub(l.r.start))
	switch c.phase {
	case phConnecting:
		if at >= c.deadline {
			l.closeConn(c)
			l.connectFailed(c, now)
			return
		}
		l.dueBy(c, c.deadline)
	case phOpen:
		if c.h2 != nil {
			next, ok := l.h2expire(c, now)
			if !ok {
				l.broken(c, errLoopTimeout, now)
				return
			}
			if next < 1<<63-1 {
				l.dueBy(c, next)
			}
		} else if c.inflight.n > 0 {
			deadline := c.inflight.at(0).sent + int64(l.r.cfg.Timeout)
			if at >= deadline {
				l.broken(c, errLoopTimeout, now)
				return
			}
			l.dueBy(c, deadline)
		}
	case phPause:
		c.phase = phIdle
	}
	l.fill(c, now)
}

// ready notes a connection's readiness and moves it on.
func (l *loop) ready(c *loopConn, events uint32) {
	if events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		c.readable = true
	}
	if events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		c.writable = true
	}
	if events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		c.hup = true
	}
	switch c.phase {
	case phConnecting:
		if c.writable {
			l.connected(c)
		}
		if c.phase == phOpen && c.h2 != nil && c.readable { // the server's SETTINGS may have come with the bridge's word
			l.serve(c)
		}
	case phOpen:
		l.serve(c)
	}
}
