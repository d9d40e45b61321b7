package relay

import (
	"errors"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// preciseThread locks the calling goroutine to its thread and narrows that thread's timer slack
// to 1 ns (50 µs by default), for sleepUntil; release puts the default slack back and unlocks, so
// the thread returns to the runtime's pool as it came instead of ending (a connection per
// request would otherwise cost a thread's creation each).
func preciseThread() (release func()) {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	return func() {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) // 0: the thread's default
		runtime.UnlockOSThread()
	}
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
