package hrtimer

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Clock serves waits on one timerfd, armed for the earliest end queued. Safe for concurrent use.
type Clock struct {
	mu    sync.Mutex
	fd    int      // the timerfd (os.File.Fd would make it blocking)
	f     *os.File // fd for the poller; nil: each wait on a time.Timer (no timerfd, or closed)
	queue []pending
}

type pending struct {
	end  time.Time
	done chan struct{}
}

// New returns a clock; Close stops it. Without a timerfd its waits run on time.Timer.
func New() *Clock {
	c := &Clock{}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return c
	}
	c.fd, c.f = fd, os.NewFile(uintptr(fd), "timerfd") // non-blocking: its reads park on the poller
	go c.run(c.f)
	return c
}

// Until returns at end, or early when ctx is done; at once when end has passed.
func (c *Clock) Until(ctx context.Context, end time.Time) {
	if !end.After(time.Now()) {
		return
	}
	done := make(chan struct{})
	c.mu.Lock()
	if c.f == nil {
		c.mu.Unlock()
		timerUntil(ctx, end)
		return
	}
	// Ends mostly come in order (a constant delay, a FIFO queue's due times): searched from the back.
	i := len(c.queue)
	for i > 0 && c.queue[i-1].end.After(end) {
		i--
	}
	c.queue = slices.Insert(c.queue, i, pending{end: end, done: done})
	if i == 0 {
		c.arm()
	}
	c.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done(): // its entry stays queued and is released in its turn
	}
}

// run releases the waits whose end has come each time the timerfd f expires, until f is closed.
func (c *Clock) run(f *os.File) {
	var n [8]byte // the expiry count
	for {
		if _, err := f.Read(n[:]); err != nil {
			return
		}
		c.mu.Lock()
		if c.f != nil {
			c.release(time.Now())
			if len(c.queue) > 0 {
				c.arm()
			}
		}
		c.mu.Unlock()
	}
}

// release ends the queued waits whose end is at or before now; c.mu is held.
func (c *Clock) release(now time.Time) {
	i := 0
	for ; i < len(c.queue) && !c.queue[i].end.After(now); i++ {
		close(c.queue[i].done)
	}
	c.queue = append(c.queue[:0], c.queue[i:]...)
}

// arm sets the timerfd for the first queued end; c.mu is held.
func (c *Clock) arm() {
	left := max(time.Until(c.queue[0].end), time.Microsecond) // 0 would disarm it
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(left.Nanoseconds())}
	unix.TimerfdSettime(c.fd, 0, &spec, nil)
}

// Close stops the clock: the waits still queued end at once, later ones run on a time.Timer.
func (c *Clock) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.f
	if f == nil {
		return nil
	}
	c.f = nil
	for _, p := range c.queue {
		close(p.done)
	}
	c.queue = nil
	return f.Close()
}
