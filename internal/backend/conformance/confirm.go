package conformance

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
)

// The confirm-window tests use a window small enough to fill and enough messages to fill it
// many times over.
const (
	windowSize     = 8
	windowMessages = 2000
)

// checkCounts returns why c breaks the invariants of a Publisher with the given window (0: no
// bound on unconfirmed messages), or "".
func checkCounts(c backend.PublishCounts, window int) string {
	settled := c.Acked + c.Nacked
	switch {
	case c.Acked < 0 || c.Nacked < 0 || settled > c.Written:
		return fmt.Sprintf("counts %+v: more settled than written", c)
	case window > 0 && c.Written-settled > int64(window):
		return fmt.Sprintf("counts %+v: %d unconfirmed, over the window of %d", c, c.Written-settled, window)
	}
	return ""
}

// watchCounts samples p.Counts from another goroutine until the returned stop is called, which
// reports the first broken invariant.
func watchCounts(t *testing.T, p backend.Publisher, window int) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var broken string
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for broken == "" {
			select {
			case <-done:
				return
			case <-tick.C:
				broken = checkCounts(p.Counts(), window)
			}
		}
	}()
	return func() {
		t.Helper()
		close(done)
		wg.Wait()
		if broken != "" {
			t.Fatalf("seen from another goroutine: %s", broken)
		}
	}
}

// publishCounted publishes n messages on p, checking that Ready leaves a free slot before each
// and the counts after each, and returns the most messages seen unconfirmed after a Publish
// returned.
func publishCounted(t *testing.T, p backend.Publisher, n, window int) (maxUnconfirmed int64) {
	t.Helper()
	ctx := testContext(t)
	for i := range n {
		if err := p.Ready(ctx); err != nil {
			t.Fatalf("Ready before Publish #%d: %v", i, err)
		}
		if c := p.Counts(); window > 0 && c.Written-c.Acked-c.Nacked >= int64(window) {
			t.Fatalf("Ready returned before Publish #%d with counts %+v: no free slot in the window of %d", i, c, window)
		}
		if err := p.Publish(ctx, fmt.Appendf(nil, "msg-%d", i)); err != nil {
			t.Fatalf("Publish #%d: %v", i, err)
		}
		c := p.Counts()
		if why := checkCounts(c, window); why != "" {
			t.Fatalf("after Publish #%d: %s", i, why)
		}
		if c.Written != int64(i+1) {
			t.Fatalf("after Publish #%d: Written = %d, want %d", i, c.Written, i+1)
		}
		maxUnconfirmed = max(maxUnconfirmed, c.Written-c.Acked-c.Nacked)
	}
	return maxUnconfirmed
}

// flushedExactly flushes p and checks that all n messages were confirmed.
func flushedExactly(t *testing.T, p backend.Publisher, n int) {
	t.Helper()
	if err := p.Flush(testContext(t)); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	c := p.Counts()
	if c.Written != int64(n) || c.Acked != int64(n) || c.Nacked != 0 || c.LastConfirm.IsZero() {
		t.Fatalf("after Flush: counts %+v, want %d written and acked, none nacked, a last confirm", c, n)
	}
}

func confirmWindowBoundsUnconfirmed(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: true, Window: windowSize})
	defer p.Close()
	stop := watchCounts(t, p, windowSize)
	most := publishCounted(t, p, windowMessages, windowSize)
	stop()
	flushedExactly(t, p, windowMessages)
	// Over thousands of publishes a Publish that returns before its confirm leaves some
	// unconfirmed; one that waits for each confirm never does.
	if most < 2 {
		t.Fatalf("at most %d unconfirmed after a Publish returned: the window is not used", most)
	}
	depthBecomes(t, b, q, windowMessages)
}

func confirmWindowOfOne(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: true, Window: 1})
	defer p.Close()
	publishCounted(t, p, 200, 1)
	flushedExactly(t, p, 200)
	depthBecomes(t, b, q, 200)
}

func confirmWithoutWindowWaitsForEach(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: true})
	defer p.Close()
	if most := publishCounted(t, p, 100, 1); most != 0 {
		t.Fatalf("%d unconfirmed after a Publish returned; without a Window it waits for its confirm", most)
	}
	flushedExactly(t, p, 100)
}

func concurrentWindowedPublishers(t *testing.T, b backend.Broker) {
	const publishers, each, window = 4, 500, 16
	q := declare(t, b, false)
	var wg sync.WaitGroup
	errs := make(chan error, publishers)
	for range publishers {
		p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: true, Window: window, Persistent: true})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.Close()
			ctx := testContext(t)
			for i := range each {
				if err := p.Publish(ctx, fmt.Appendf(nil, "msg-%d", i)); err != nil {
					errs <- err
					return
				}
			}
			if err := p.Flush(ctx); err != nil {
				errs <- err
				return
			}
			if c := p.Counts(); c.Written != each || c.Acked != each || c.Nacked != 0 {
				errs <- fmt.Errorf("counts %+v, want %d written and acked", c, each)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	depthBecomes(t, b, q, publishers*each)
}

func countsWithoutConfirms(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	p := publisher(t, b, backend.PublisherConfig{Queue: q})
	publishCounted(t, p, 100, 0)
	if err := p.Flush(testContext(t)); err != nil {
		t.Fatalf("Flush without confirms: %v", err)
	}
	if c := p.Counts(); c.Written != 100 || c.Acked != 0 || c.Nacked != 0 {
		t.Fatalf("counts %+v, want 100 written and no confirms", c)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	depthBecomes(t, b, q, 100)
}

func badWindowRefused(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	for _, cfg := range []backend.PublisherConfig{
		{Queue: q, Window: 4},
		{Queue: q, Confirm: true, Window: -1},
	} {
		if p, err := b.Publisher(testContext(t), cfg); err == nil {
			_ = p.Close()
			t.Errorf("Publisher(%+v): no error", cfg)
		}
	}
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, 1) // the Broker still works
}

func publishAfterCloseFails(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	for _, cfg := range []backend.PublisherConfig{{Queue: q}, {Queue: q, Confirm: true, Window: 4}} {
		p := publisher(t, b, cfg)
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := p.Publish(testContext(t), []byte("late")); !errors.Is(err, backend.ErrClosed) {
			t.Errorf("Publish after Close (%+v): %v, want an error wrapping backend.ErrClosed", cfg, err)
		}
		if err := p.Ready(testContext(t)); !errors.Is(err, backend.ErrClosed) {
			t.Errorf("Ready after Close (%+v): %v, want an error wrapping backend.ErrClosed", cfg, err)
		}
	}
	if n := depth(t, b, q); n != 0 {
		t.Fatalf("Depth = %d after publishing only on closed publishers", n)
	}
}
