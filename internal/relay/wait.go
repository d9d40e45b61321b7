package relay

import (
	"sync/atomic"
	"time"
)

// maxLead bounds how early a writer wakes before a chunk's due time, hence what it may spin per
// chunk: past it, a late wake-up is the machine's, and the relay's measure (from each chunk's
// arrival to the end of its write) still holds it.
const maxLead = 50 * time.Microsecond

// waker wakes writers at their chunks' due times, neither early nor, on average, late: a thread
// woken from a sleep comes back some tens of µs after the time it asked for (more on a busy
// machine), so it asks for the due time less its lead, the recent mean of that lateness, and
// spins the rest. Safe for concurrent use; the writers of a relay share what they learn.
type waker struct {
	lead atomic.Int64 // ns
}

// until blocks until t.
func (w *waker) until(t time.Time) {
	lead := time.Duration(w.lead.Load())
	wake := t.Add(-lead)
	if time.Until(wake) > 0 {
		sleepUntil(wake)
		late := min(max(time.Since(wake), 0), maxLead)
		w.lead.Store(int64(lead + (late-lead)/8))
	}
	for time.Now().Before(t) {
	}
}
