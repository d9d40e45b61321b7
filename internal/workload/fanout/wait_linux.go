package fanout

import (
	"context"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Waits is a clock for waits of one constant length: each Wait ends at its start plus the
// length, so their ends come in the order they started and one timerfd, armed for the earliest,
// serves them all.
//
// Why not a time.Timer: it fires through the Go poller's epoll_wait, whose timeout is whole
// milliseconds (rounded down, then 1 ms for what is left), so an upstream whose poller woke for
// other connections meanwhile answered 0-1 ms late (p50 11.4-11.8 ms at -c10 where 10 was asked;
// 10.6-10.8 with this clock, at the same CPU per call), and that lateness lay on every fanout
// route's path. A timerfd's expiry is the kernel's high-resolution timer, without the process's
// timer slack; its reads park on the poller, so no thread is held while it runs.
type Waits struct {
	d     time.Duration
	mu    sync.Mutex
	fd    int      // the timerfd (os.File.Fd would make it blocking)
	f     *os.File // fd for the poller; nil: each Wait on a time.Timer (no timerfd, or closed)
	queue []pending
}

type pending struct {
	end  time.Time
	done chan struct{}
}

// NewWaits returns a clock for waits of d; Close stops it.
func NewWaits(d time.Duration) *Waits {
	w := &Waits{d: d}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return w
	}
	w.fd, w.f = fd, os.NewFile(uintptr(fd), "timerfd") // non-blocking: its reads park on the poller
	go w.run(w.f)
	return w
}

// Wait returns d after its call, or early when ctx is done.
func (w *Waits) Wait(ctx context.Context) {
	done := make(chan struct{})
	w.mu.Lock()
	if w.f == nil {
		w.mu.Unlock()
		timerWait(ctx, w.d)
		return
	}
	w.queue = append(w.queue, pending{end: time.Now().Add(w.d), done: done})
	if len(w.queue) == 1 {
		w.arm()
	}
	w.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done(): // its entry stays queued and is released in its turn
	}
}

// run releases the waits whose end has come each time the timerfd f expires, until f is closed.
func (w *Waits) run(f *os.File) {
	var n [8]byte // the expiry count
	for {
		if _, err := f.Read(n[:]); err != nil {
			return
		}
		w.mu.Lock()
		if w.f != nil {
			w.release(time.Now())
			if len(w.queue) > 0 {
				w.arm()
			}
		}
		w.mu.Unlock()
	}
}

// release ends the queued waits whose end is at or before now; w.mu is held.
func (w *Waits) release(now time.Time) {
	i := 0
	for ; i < len(w.queue) && !w.queue[i].end.After(now); i++ {
		close(w.queue[i].done)
	}
	w.queue = append(w.queue[:0], w.queue[i:]...)
}

// arm sets the timerfd for the first queued end; w.mu is held.
func (w *Waits) arm() {
	left := max(time.Until(w.queue[0].end), time.Microsecond) // 0 would disarm it
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(left.Nanoseconds())}
	unix.TimerfdSettime(w.fd, 0, &spec, nil)
}

// Close stops the clock: the waits still queued end at once, later ones run on a time.Timer.
func (w *Waits) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.f
	if f == nil {
		return nil
	}
	w.f = nil
	w.release(time.Now().Add(w.d))
	return f.Close()
}
