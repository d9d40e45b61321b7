// Package confirm keeps the books of one publisher for the brokers' backends: a Window bounds
// how many publishes await their confirm and counts, under one lock, what was written, acked
// and nacked, so a snapshot is always consistent (never more settled than written, never more
// outstanding than the window).
//
// A publisher calls Begin before each write (it waits for a free slot and counts the message),
// Undo when the write failed, and Settle from its confirm listener for each ack or nack; Abort
// says the confirms can no longer come (the channel was lost, or the publisher closed), after
// which Begin fails. Ready is the publisher's Ready, Wait its Flush.
package confirm

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/backend"
)

// Window bounds and counts the publishes of one publisher. Its methods are safe for concurrent
// use.
type Window struct {
	slots   chan struct{} // one token per unsettled publish; nil without confirms
	changed chan struct{} // signalled (capacity 1) after each Settle, for Wait
	aborted chan struct{} // closed by Abort

	mu     sync.Mutex
	counts backend.PublishCounts
	why    error // Abort's cause
}

// Size checks cfg's confirm settings and returns the size of the Window its publisher needs: 0
// without confirms, 1 with confirms and no window (each Publish waits for its own), else
// cfg.Window.
func Size(cfg backend.PublisherConfig) (int, error) {
	switch {
	case cfg.Window < 0:
		return 0, fmt.Errorf("confirm window %d: use 0 (none) or a positive size", cfg.Window)
	case cfg.Window > 0 && !cfg.Confirm:
		return 0, fmt.Errorf("confirm window %d without confirms; set Confirm too", cfg.Window)
	case !cfg.Confirm:
		return 0, nil
	}
	return max(cfg.Window, 1), nil
}

// New returns a Window of size publishes awaiting their confirm. Size 0 counts writes only, for
// a publisher without confirms: Begin never waits and Wait returns at once.
func New(size int) *Window {
	w := &Window{changed: make(chan struct{}, 1), aborted: make(chan struct{})}
	if size > 0 {
		w.slots = make(chan struct{}, size)
	}
	return w
}

// Begin takes a slot for one publish, waiting while the window is full, and counts the message
// as written. It fails with Abort's cause once the Window is aborted, and when ctx ends while
// it waits for a slot.
func (w *Window) Begin(ctx context.Context) error {
	if err := w.take(ctx); err != nil {
		return err
	}
	w.mu.Lock()
	w.counts.Written++
	w.mu.Unlock()
	return nil
}

// Ready waits until Begin would not wait, and fails as Begin does. Only the goroutine that
// calls Begin may call it: it takes a slot and gives it back, so the slot stays free until
// that goroutine's next Begin.
func (w *Window) Ready(ctx context.Context) error {
	if err := w.take(ctx); err != nil {
		return err
	}
	if w.slots != nil {
		<-w.slots
	}
	return nil
}

// take takes a slot, waiting while the window is full, unless the Window is aborted.
func (w *Window) take(ctx context.Context) error {
	select {
	case <-w.aborted:
		return w.abortErr()
	default:
	}
	if w.slots == nil {
		return nil
	}
	select {
	case w.slots <- struct{}{}: // a free slot is taken even when ctx has ended
	default:
		select {
		case w.slots <- struct{}{}:
		case <-w.aborted:
			return w.abortErr()
		case <-ctx.Done():
			return fmt.Errorf("waiting for a free confirm slot: %w", ctx.Err())
		}
	}
	// A full window and an abort can both be ready; the abort wins.
	select {
	case <-w.aborted:
		<-w.slots
		return w.abortErr()
	default:
	}
	return nil
}

// Undo takes back a Begin whose write failed: the message is no longer counted and its slot is
// free.
func (w *Window) Undo() {
	w.mu.Lock()
	w.counts.Written--
	w.mu.Unlock()
	if w.slots != nil {
		<-w.slots
	}
}

// Settle records one confirm, an ack or a nack, and frees its slot.
func (w *Window) Settle(ack bool) {
	w.mu.Lock()
	if ack {
		w.counts.Acked++
	} else {
		w.counts.Nacked++
	}
	w.counts.LastConfirm = time.Now()
	w.mu.Unlock()
	if w.slots != nil {
		select {
		case <-w.slots:
		default: // a confirm for no Begin: the broker's business, not a reason to block
		}
	}
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// Abort says that no more confirms will come, because of why: Begin fails from now on, and so
// does Wait while messages are unsettled. Only the first call counts.
func (w *Window) Abort(why error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.aborted:
		return
	default:
	}
	w.why = why
	close(w.aborted)
}

func (w *Window) abortErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.why
}

// Counts returns a consistent snapshot of the counts.
func (w *Window) Counts() backend.PublishCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}

// unsettled returns how many written messages await their confirm.
func (w *Window) unsettled() int64 {
	c := w.Counts()
	return c.Written - c.Acked - c.Nacked
}

// Wait returns once every message written so far is settled. It fails when ctx ends first or
// the Window is aborted with messages unsettled.
func (w *Window) Wait(ctx context.Context) error {
	if w.slots == nil {
		return nil
	}
	for {
		n := w.unsettled()
		if n == 0 {
			return nil
		}
		select {
		case <-w.changed:
		case <-w.aborted:
			if n = w.unsettled(); n == 0 {
				return nil
			}
			return fmt.Errorf("%d confirms will not come: %w", n, w.abortErr())
		case <-ctx.Done():
			return fmt.Errorf("%d confirms still missing: %w", n, ctx.Err())
		}
	}
}
