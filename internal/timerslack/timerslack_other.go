//go:build !linux

package timerslack

// Ensure does nothing where the timer slack cannot be set.
func Ensure(ns uint64) error { return nil }

// Current returns 0: the timer slack is not known.
func Current() uint64 { return 0 }
