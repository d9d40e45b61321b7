package fault

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// Watch follows a measured phase with faults: it takes every counted request's end (Observe)
// into a Timeline, counts the requests in flight at each fault and the responses outside 2xx,
// strikes each fault on time (Start) and writes the Record.
type Watch struct {
	start    time.Time
	timeline *Timeline
	strikes  sync.WaitGroup

	mu       sync.Mutex
	events   []Event
	windows  []window // of each event, for InFlight
	statuses map[int]int64
	err      error
	done     int64     // counted requests ended so far (StartCounted)
	due      []counted // faults waiting for their count
}

// counted is a fault that strikes once after requests have ended (StartCounted).
type counted struct {
	after int64
	spec  Spec
	fire  func(Spec)
}

// window is a fault's span: from when its action began to when the fault took effect (the
// process dead, the service stopped, the relay cutting); hit is zero until then.
type window struct{ began, hit time.Time }

// caught says whether a request sent at sent and ended at done was in flight at the fault: it
// ended after the action began and was sent before the fault took effect (before it, when the
// fault has not yet: the request was sent before now).
func (w window) caught(sent, done time.Time) bool {
	return !done.Before(w.began) && (w.hit.IsZero() || !sent.After(w.hit))
}

// NewWatch returns the watch of a measured phase that begins at start.
func NewWatch(start time.Time) *Watch {
	return &Watch{start: start, timeline: NewTimeline(start), statuses: map[int]int64{}}
}

// Observe takes one counted request's end: sent and done, its status (0 without a response)
// and its error class ("" for a success).
func (w *Watch) Observe(sent, done time.Time, status int, class string) {
	if class == "" {
		w.timeline.Success(done)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done++
	w.fireDue()
	if status != 0 && (status < 200 || status > 299) {
		w.statuses[status]++
	}
	for i, win := range w.windows {
		if win.caught(sent, done) {
			k := class
			if k == "" {
				k = "ok"
			}
			if w.events[i].InFlight == nil {
				w.events[i].InFlight = map[string]int64{}
			}
			w.events[i].InFlight[k]++
		}
	}
}

// Action performs one fault. It calls hit the moment the fault takes effect (the process
// killed, the service stopped, the relay cutting), then returns once it has ended (the process
// ready again, the service back, the relay healed).
type Action func(ctx context.Context, s Spec, hit func()) error

// Start strikes each of specs at its point of a measured phase of length measured (Spec.Offset
// from the watch's start) with act, unless ctx has ended by then (a fault that has struck runs
// its action to the end); Wait waits for them.
func (w *Watch) Start(ctx context.Context, specs []Spec, measured time.Duration, act Action) {
	for _, s := range specs {
		w.strikes.Go(func() {
			t := time.NewTimer(time.Until(w.start.Add(s.Offset(measured))))
			defer t.Stop()
			select {
			case <-ctx.Done():
			case <-t.C:
				w.strike(context.WithoutCancel(ctx), s, act)
			}
		})
	}
}

// StartCounted strikes each of specs once Spec.Count of n counted requests have ended (a run of
// -n requests), with act, unless ctx has ended; Wait waits for them.
func (w *Watch) StartCounted(ctx context.Context, specs []Spec, n int64, act Action) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range specs {
		w.strikes.Add(1)
		w.due = append(w.due, counted{after: s.Count(n), spec: s, fire: func(s Spec) {
			go func() {
				defer w.strikes.Done()
				if ctx.Err() == nil {
					w.strike(context.WithoutCancel(ctx), s, act)
				}
			}()
		}})
	}
	context.AfterFunc(ctx, func() { // a run that ended short: the faults not due are dropped
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, d := range w.due {
			d.fire(d.spec)
		}
		w.due = nil
	})
}

// fireDue fires the counted faults whose count has come; w.mu is held.
func (w *Watch) fireDue() {
	keep := w.due[:0]
	for _, d := range w.due {
		if w.done >= d.after {
			d.fire(d.spec)
		} else {
			keep = append(keep, d)
		}
	}
	w.due = keep
}

func (w *Watch) strike(ctx context.Context, s Spec, act Action) {
	w.mu.Lock()
	i := len(w.events)
	w.events = append(w.events, Event{Fault: s.String()})
	w.windows = append(w.windows, window{began: time.Now()})
	w.mu.Unlock()
	var once sync.Once
	hit := func() {
		once.Do(func() {
			w.mu.Lock()
			w.windows[i].hit = time.Now()
			w.mu.Unlock()
		})
	}
	err := act(ctx, s, hit)
	hit() // an action that never said: the fault took effect when it ended
	w.mu.Lock()
	defer w.mu.Unlock()
	at := w.windows[i].hit
	w.events[i].At, w.events[i].Took = result.Duration(at.Sub(w.start)), result.Duration(time.Since(at))
	if err != nil && w.err == nil {
		w.err = err
	}
}

// Wait waits for every fault Start scheduled to have struck (or been dropped with its context)
// and returns the first error an action returned.
func (w *Watch) Wait() error {
	w.strikes.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Record returns the section of a measured phase of length elapsed: each fault with its recovery.
// Call it after Wait.
func (w *Watch) Record(elapsed time.Duration) *Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := &Record{Faults: append([]Event{}, w.events...)}
	for i := range rec.Faults {
		e := &rec.Faults[i]
		e.set(w.timeline.Recover(w.windows[i].hit.Sub(w.start), elapsed))
	}
	for status, n := range w.statuses {
		if rec.Statuses == nil {
			rec.Statuses = map[string]int64{}
		}
		rec.Statuses[strconv.Itoa(status)] = n
	}
	return rec
}
