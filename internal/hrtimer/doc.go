// Package hrtimer waits until given instants to within the kernel's high-resolution timer, where
// a time.Timer may wake up to a millisecond late.
//
// Why not a time.Timer: it fires through the Go poller's epoll_wait, whose timeout is whole
// milliseconds (rounded down, then 1 ms for what is left), so a wait whose poller is idle or woke
// for other descriptors meanwhile ends 0-1 ms late. An upstream answering after 10 ms had a p50 of
// 11.4-11.8 ms at -c10 on one (10.6-10.8 ms on this clock, at the same CPU per call), and the
// server of known capacity (iobench serve hello --max-rate) answered 381 µs late on average under
// Poisson arrivals at half its capacity, 101 µs under even ones. A timerfd's expiry is the
// kernel's high-resolution timer, without the process's timer slack; its reads park on the poller,
// so no thread is held while it runs.
package hrtimer

import (
	"context"
	"time"
)

// timerUntil returns at end, or early when ctx is done, on a time.Timer.
func timerUntil(ctx context.Context, end time.Time) {
	d := time.Until(end)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
