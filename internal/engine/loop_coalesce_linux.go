package engine

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// coalesceRate is the rate per thread from which an open-loop event loop coalesces its wake-ups:
// at it and above, requests are due every 100 µs or more often, so the loop is awake that often
// anyway.
const coalesceRate = 10_000

// coalesceTick bounds a coalescing loop's sleep, so that a response is read at most this long
// after it arrived even when no timer is near.
const coalesceTick = 100 * time.Microsecond

// stampCmsgLen is the room for the one control message a stamped read receives: a cmsghdr and
// the timespec of SCM_TIMESTAMPNS.
var stampCmsgLen = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

// coalescer is what a coalescing loop adds (see loop.settle): the receive timestamps' message
// header and buffers, reused by every read.
type coalescer struct {
	msg  unix.Msghdr
	iov  unix.Iovec
	cmsg []byte
}

// coalesceDeep is the number of requests in flight per thread from which a closed loop
// coalesces its wake-ups: the server then has at least that many queued, more than it answers in
// a coalesceTick unless it answers faster than one request per 0.8 µs, so the loop's sleep never
// leaves it idle.
const coalesceDeep = 128

// coalesces reports whether a loop of cfg's run, one of threads, coalesces its wake-ups. Under
// load an open loop is woken twice per request, by the timer of its next send and by the answer
// of the last one, and each wake-up costs the kernel more than the request's own system calls
// (perf stat, 50,000 req/s: 0.41 context switches per request). A coalescing loop instead sleeps
// until its next timer without being woken by answers, so the kernel's timer slack (50 µs by
// default) gathers several sends and several answers into one wake-up; answers are timed by the
// kernel's receive timestamp (SO_TIMESTAMPNS), so their latency stays exact, and a send may be
// up to the slack late, which the schedule lag shows and latency from the intended start counts.
//
// A closed loop with coalesceDeep requests in flight or more (pipelined, or on HTTP/2 streams)
// coalesces too, for the server's sake: a loop that blocks in epoll is woken by the server's
// writes, and the wake-up of a thread on another core is charged to the server's write (against
// one-worker nginx over h2c, -c10 --streams 100: 16% of nginx's samples in sock_def_readable's
// wake-up, 3% with the loop sleeping instead, as h2load's; perf record -g on nginx's worker).
func coalesces(cfg *Config) bool {
	if cfg.TLS != nil { // a bridged socket's receive time is the bridge's
		return false
	}
	threads := max(cfg.Threads, 1)
	if cfg.Rate == 0 {
		return cfg.depth() > 1 && cfg.depth()*cfg.Connections/threads >= coalesceDeep
	}
	return cfg.Rate/float64(threads) >= coalesceRate
}

func newCoalescer() *coalescer {
	co := &coalescer{cmsg: make([]byte, stampCmsgLen)}
	co.msg.Iov, co.msg.Iovlen, co.msg.Control = &co.iov, 1, &co.cmsg[0]
	return co
}

// stamp asks the kernel to time each segment that fd receives.
func stamp(fd int) {
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
}

// settle is a coalescing loop's wait: it sleeps until timeout or coalesceTick, whichever comes
// first, whatever becomes ready meanwhile, then takes what is ready. The sleep is short and the
// loop's only work, so it is made raw (as poll), without handing the processor back.
func (l *loop) settle(timeout time.Duration) (int, error) {
	ts := unix.NsecToTimespec(int64(min(timeout, coalesceTick)))
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	return l.poll()
}

// readStamped reads fd into b as retry does and keeps the kernel's receive time of the last
// segment read in c.arrived (wall clock, nanoseconds), or 0 when the read had no stamp.
func (l *loop) readStamped(c *loopConn, b []byte) (n int, again bool, err error) {
	co := l.co
	c.arrived = 0
	co.iov.Base = &b[0]
	co.iov.SetLen(len(b))
	co.msg.SetControllen(len(co.cmsg))
	for {
		r, _, errno := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&co.msg)), 0)
		switch errno {
		case unix.EINTR:
			continue
		case 0:
			if at, ok := co.arrival(); ok {
				c.arrived = at
			}
			return int(r), false, nil
		case unix.EAGAIN:
			return 0, true, nil
		default:
			return 0, false, errno
		}
	}
}

// arrival returns the receive time of the last read's SCM_TIMESTAMPNS message, if it had one.
func (co *coalescer) arrival() (int64, bool) {
	if int(co.msg.Controllen) < stampCmsgLen {
		return 0, false
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&co.cmsg[0]))
	if h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS {
		return 0, false
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&co.cmsg[unix.CmsgLen(0)]))
	return ts.Nano(), true
}

// answeredAt returns when the answer to a request sent at sent arrived, by the run's clock read
// now: now less the time since the kernel stamped the last segment read on c, kept within the
// request's span (a clock set back meanwhile cannot put it outside). Without a stamp it is now.
// Pipelined answers parsed from one read share its stamp.
func answeredAt(c *loopConn, sent, now time.Time) time.Time {
	if c.arrived == 0 {
		return now
	}
	age := time.Duration(time.Now().UnixNano() - c.arrived)
	return now.Add(-min(max(age, 0), now.Sub(sent)))
}
