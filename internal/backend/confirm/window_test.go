package confirm

import (
	"context"
	"errors"
	"testing"
)

func TestWindow(t *testing.T) {
	w := New(2)
	ctx := t.Context()
	for range 2 {
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.Begin(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin on a full window with an ended context: %v", err)
	}
	if err := w.Wait(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with 2 unsettled and an ended context: %v", err)
	}
	if err := w.Ready(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ready on a full window with an ended context: %v", err)
	}
	w.Settle(true)
	for range 2 { // Ready leaves the slot free
		if err := w.Ready(done); err != nil {
			t.Fatalf("Ready after a Settle freed a slot: %v", err)
		}
	}
	if err := w.Begin(ctx); err != nil {
		t.Fatalf("Begin after a Settle freed a slot: %v", err)
	}
	w.Undo()
	w.Settle(false)
	c := w.Counts()
	if c.Written != 2 || c.Acked != 1 || c.Nacked != 1 || c.LastConfirm.IsZero() {
		t.Fatalf("counts %+v, want 2 written, 1 acked, 1 nacked, a last confirm", c)
	}
	if err := w.Wait(done); err != nil {
		t.Fatalf("Wait with nothing unsettled: %v", err)
	}
}

func TestAbort(t *testing.T) {
	w := New(1)
	if err := w.Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	why := errors.New("channel closed")
	w.Abort(why)
	w.Abort(errors.New("second"))
	if err := w.Begin(t.Context()); !errors.Is(err, why) {
		t.Fatalf("Begin after Abort: %v", err)
	}
	if err := w.Ready(t.Context()); !errors.Is(err, why) {
		t.Fatalf("Ready after Abort: %v", err)
	}
	if err := w.Wait(t.Context()); !errors.Is(err, why) || err.Error() != "1 confirms will not come: channel closed" {
		t.Fatalf("Wait after Abort: %v", err)
	}
}

func TestNoConfirms(t *testing.T) {
	w := New(0)
	for range 5 {
		if err := w.Begin(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c := w.Counts(); c.Written != 5 || c.Acked != 0 {
		t.Fatalf("counts %+v", c)
	}
	why := errors.New("publisher closed")
	w.Abort(why)
	if err := w.Begin(t.Context()); !errors.Is(err, why) {
		t.Fatalf("Begin after Abort without confirms: %v", err)
	}
}
