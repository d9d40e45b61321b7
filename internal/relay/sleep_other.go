//go:build !linux

package relay

import "time"

// preciseThread does nothing where the timer slack cannot be set.
func preciseThread() (release func()) { return func() {} }

// sleepUntil sleeps until t with the runtime's timers.
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }
