package timerslack

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Ensure makes the timer slack of this process at least ns nanoseconds. When the calling
// thread's (inherited by every thread of the process) is lower, it sets it and re-executes the
// program with the same arguments and environment, and does not return unless that failed. It
// returns nil at once when the slack is already wide enough, or when ns is 0.
func Ensure(ns uint64) error {
	if ns == 0 {
		return nil
	}
	runtime.LockOSThread() // the slack set is this thread's, and execve must run on it
	defer runtime.UnlockOSThread()
	if Current() >= ns {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(ns), 0, 0, 0); err != nil {
		return fmt.Errorf("timer slack: %w", err)
	}
	if got := Current(); got < ns { // never re-execute in a loop
		return fmt.Errorf("timer slack: set %d ns, the kernel kept %d ns", ns, got)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("timer slack: %w", err)
	}
	return fmt.Errorf("timer slack: re-executing %s: %w", exe, syscall.Exec(exe, os.Args, os.Environ()))
}

// Current returns the calling thread's timer slack in nanoseconds, 0 if it cannot be read.
func Current() uint64 {
	r, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return 0
	}
	return uint64(r)
}
