package engine

import "time"

// Clock tells time and waits. The engine takes it as a value so that pacer tests run on a virtual
// clock and never sleep.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// RealClock is the wall clock (monotonic readings from time.Now).
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep calls time.Sleep.
func (RealClock) Sleep(d time.Duration) { time.Sleep(d) }
