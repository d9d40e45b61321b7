package relay

import (
	"errors"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// preciseThread locks the calling goroutine to its thread and narrows that thread's timer slack
// to 1 ns (50 µs by default), for sleepUntil. It never unlocks: the thread ends with the
// goroutine, so no other goroutine inherits the slack.
func preciseThread() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
}

// sleepUntil blocks the thread in nanosleep until t: time.Sleep waits in the runtime's poller,
// which rounds a wait up to whole milliseconds.
func sleepUntil(t time.Time) {
	for {
		d := time.Until(t)
		if d <= 0 {
			return
		}
		ts := unix.NsecToTimespec(int64(d))
		if err := unix.Nanosleep(&ts, nil); err == nil || !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}
