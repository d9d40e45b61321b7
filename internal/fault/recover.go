package fault

import (
	"sync"
	"time"
)

// Resolution is the width of a Timeline's bins: recovery is read to the millisecond.
const Resolution = time.Millisecond

// Window is the sliding window whose rate says a run has recovered, and Share the share of the
// rate before the fault it must reach.
const (
	Window = time.Second
	Share  = 0.9
)

// Timeline counts the successes of a measured phase by completion time, in bins of Resolution
// from its start. It is safe for concurrent use (the engine's threads add to it).
type Timeline struct {
	mu    sync.Mutex
	start time.Time
	ok    []int32
}

// NewTimeline returns a timeline of a measured phase that begins at start.
func NewTimeline(start time.Time) *Timeline { return &Timeline{start: start} }

// Success adds a success completed at done; one before the start is left out.
func (t *Timeline) Success(done time.Time) {
	i := int(done.Sub(t.start) / Resolution)
	if i < 0 {
		return
	}
	t.mu.Lock()
	if i >= len(t.ok) {
		t.ok = append(t.ok, make([]int32, i+1-len(t.ok))...)
	}
	t.ok[i]++
	t.mu.Unlock()
}

// Recovery is how a run came back after a fault, read from its completion timestamps.
type Recovery struct {
	// Before is the success rate from the start of the measured phase to the fault, per second.
	Before float64
	// FirstSuccess is the time from the fault to the first success completed after it;
	// Recovered the time from the fault to the end of the first sliding Window, starting at or
	// after the fault, whose rate reaches Share of Before. Each is negative when it never came
	// before the end.
	FirstSuccess, Recovered time.Duration
	// Short says the phase ended less than a Window after the fault: no window could tell.
	Short bool
}

// Recover reads the recovery after a fault at offset at (from the timeline's start) in a
// measured phase that ended at end. A window starts at or after the fault, so a recovery is
// never shorter than Window: a fault that cost nothing reads Window.
func (t *Timeline) Recover(at, end time.Duration) Recovery { return t.RecoverFrom(0, at, end) }

// RecoverFrom is Recover with the rate before the fault taken from offset from on (the bus:
// from its consumer's readiness, the fill before it left out).
func (t *Timeline) RecoverFrom(from, at, end time.Duration) Recovery {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := Recovery{FirstSuccess: -1, Recovered: -1}
	first := int(at / Resolution)
	last := min(len(t.ok), int(end/Resolution)) // bins [first, last) are after the fault
	if at > from {
		lo := min(int(from/Resolution), len(t.ok))
		r.Before = float64(sum(t.ok[lo:min(first, len(t.ok))])) / (at - from).Seconds()
	}
	for i := first; i < last; i++ {
		if t.ok[i] > 0 {
			r.FirstSuccess = time.Duration(i-first+1) * Resolution
			break
		}
	}
	w := int(Window / Resolution)
	need := Share * r.Before * Window.Seconds()
	r.Short = first+w > int(end/Resolution)
	if r.FirstSuccess < 0 || first+w > last {
		return r
	}
	n := sum(t.ok[first : first+w])
	for s := first; ; s++ {
		if float64(n) >= need {
			r.Recovered = time.Duration(s-first+w) * Resolution
			return r
		}
		if s+w >= last {
			return r
		}
		n += int64(t.ok[s+w]) - int64(t.ok[s])
	}
}

func sum(bins []int32) int64 {
	var n int64
	for _, b := range bins {
		n += int64(b)
	}
	return n
}
