package fanout

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestWaits: concurrent waits each last at least their length and all end; a cancelled one ends
// early without holding back those queued after it; Close ends those queued, and later waits
// run on a time.Timer.
func TestWaits(t *testing.T) {
	const d = 5 * time.Millisecond
	w := NewWaits(d)
	var wg sync.WaitGroup
	took := make([]time.Duration, 20)
	for i := range took {
		wg.Go(func() {
			t0 := time.Now()
			w.Wait(t.Context())
			took[i] = time.Since(t0)
		})
		time.Sleep(time.Duration(i%3) * time.Millisecond) // some waits queued behind pending ones
	}
	ctx, cancel := context.WithCancel(t.Context())
	t0 := time.Now()
	time.AfterFunc(time.Millisecond, cancel)
	w.Wait(ctx)
	if early := time.Since(t0); early >= d {
		t.Errorf("a wait cancelled after 1ms took %v, want less than %v", early, d)
	}
	wg.Wait()
	for i, got := range took {
		if got < d || got > time.Second {
			t.Errorf("wait %d took %v, want %v or a little more", i, got, d)
		}
	}
	t0 = time.Now()
	w.Wait(t.Context()) // after the cancelled one's turn has passed
	if got := time.Since(t0); got < d {
		t.Errorf("a wait after a cancelled one took %v, want at least %v", got, d)
	}
	queued := make(chan time.Duration)
	go func() {
		t0 := time.Now()
		w.Wait(t.Context())
		queued <- time.Since(t0)
	}()
	for queuedLen(w) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-queued:
		if got >= d {
			t.Errorf("a wait queued at Close took %v, want it ended at the Close", got)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a wait queued at Close did not end")
	}
	t0 = time.Now()
	w.Wait(t.Context())
	if got := time.Since(t0); got < d {
		t.Errorf("a wait on a closed clock took %v, want at least %v (on a time.Timer)", got, d)
	}
}

func queuedLen(w *Waits) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}
