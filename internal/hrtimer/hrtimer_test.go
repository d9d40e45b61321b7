package hrtimer

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestUntil: concurrent waits, their ends given out of order, each end no earlier than asked and
// in the order of their ends; a cancelled one ends early without holding back those queued after
// it; an end already passed returns at once.
func TestUntil(t *testing.T) {
	c := New()
	defer c.Close()
	t0 := time.Now()
	ends := []time.Duration{150, 50, 100, 50, 200} // ms after t0, far enough apart that no goroutine runs 50 ms late
	var mu sync.Mutex
	var order []time.Duration
	var wg sync.WaitGroup
	for _, ms := range ends {
		wg.Go(func() {
			end := t0.Add(ms * time.Millisecond)
			c.Until(t.Context(), end)
			if early := end.Sub(time.Now()); early > 0 {
				t.Errorf("a wait until +%dms returned %v early", ms, early)
			}
			mu.Lock()
			order = append(order, ms)
			mu.Unlock()
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(time.Millisecond, cancel)
	c.Until(ctx, t0.Add(time.Hour))
	if got := time.Since(t0); got >= 50*time.Millisecond {
		t.Errorf("a wait cancelled after 1ms took %v", got)
	}
	wg.Wait()
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Errorf("waits ended in the order %v ms, want their ends' order", order)
			break
		}
	}
	t1 := time.Now()
	c.Until(t.Context(), t1.Add(-time.Second))
	if got := time.Since(t1); got > 10*time.Millisecond {
		t.Errorf("a wait for a past end took %v, want none", got)
	}
}

// TestClose: Close ends the waits queued, and later waits run on a time.Timer.
func TestClose(t *testing.T) {
	c := New()
	queued := make(chan time.Duration)
	go func() {
		t0 := time.Now()
		c.Until(t.Context(), t0.Add(time.Hour))
		queued <- time.Since(t0)
	}()
	for queuedLen(c) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-queued:
	case <-time.After(2 * time.Second):
		t.Fatal("a wait queued at Close did not end")
	}
	t0 := time.Now()
	c.Until(t.Context(), t0.Add(5*time.Millisecond))
	if got := time.Since(t0); got < 5*time.Millisecond {
		t.Errorf("a wait on a closed clock took %v, want at least 5ms (on a time.Timer)", got)
	}
}

func queuedLen(c *Clock) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}
