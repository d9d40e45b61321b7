package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/iobench/iobench/internal/backend"
)

// KV runs the key-value suite. open must return a connected KV for the subtest it is given; the
// suite closes it. Every key the suite counts is new and deleted afterwards.
func KV(t *testing.T, open func(t *testing.T) backend.KV) {
	cases := []struct {
		name string
		run  func(t *testing.T, kv backend.KV)
	}{
		{"IncrCountsFromZero", incrCountsFromZero},
		{"ConcurrentIncrsEachGetTheirValue", concurrentIncrs},
		{"KeysAreApart", keysAreApart},
		{"DelResets", delResets},
		{"EndedContextChangesNothing", endedContextChangesNothing},
		{"ClosedFails", kvClosedFails},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kv := open(t)
			t.Cleanup(func() {
				if err := kv.Close(); err != nil {
					t.Errorf("KV.Close: %v", err)
				}
			})
			tc.run(t, kv)
		})
	}
}

// key returns a new key that is deleted when the test ends.
func key(t *testing.T, kv backend.KV) string {
	t.Helper()
	k := uniqueName("iobench-conf-")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := kv.Del(ctx, k); err != nil && !errors.Is(err, backend.ErrClosed) {
			t.Errorf("Del(%q): %v", k, err)
		}
	})
	return k
}

// wantCount fails the test unless Get(k) returns n (ok false when n is -1).
func wantCount(t *testing.T, kv backend.KV, k string, n int64) {
	t.Helper()
	got, ok, err := kv.Get(testContext(t), k)
	switch {
	case err != nil:
		t.Fatalf("Get(%q): %v", k, err)
	case n < 0 && ok:
		t.Fatalf("Get(%q) = %d, want no such key", k, got)
	case n >= 0 && (!ok || got != n):
		t.Fatalf("Get(%q) = %d, %v; want %d, true", k, got, ok, n)
	}
}

func incr(t *testing.T, kv backend.KV, k string, want int64) {
	t.Helper()
	if n, err := kv.Incr(testContext(t), k); err != nil || n != want {
		t.Fatalf("Incr(%q) = %d, %v; want %d", k, n, err, want)
	}
}

func incrCountsFromZero(t *testing.T, kv backend.KV) {
	k := key(t, kv)
	wantCount(t, kv, k, -1)
	for i := int64(1); i <= 5; i++ {
		incr(t, kv, k, i)
	}
	wantCount(t, kv, k, 5)
}

func concurrentIncrs(t *testing.T, kv backend.KV) {
	const workers, each = 8, 200
	k := key(t, kv) // missing at first: the workers race to create it too
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			ctx := testContext(t)
			for range each {
				n, err := kv.Incr(ctx, k)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				dup := seen[n]
				seen[n] = true
				mu.Unlock()
				if dup {
					errs <- fmt.Errorf("Incr returned %d twice", n)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	wantCount(t, kv, k, workers*each)
	for n := int64(1); n <= workers*each; n++ {
		if !seen[n] {
			t.Fatalf("no Incr returned %d", n)
		}
	}
}

func keysAreApart(t *testing.T, kv backend.KV) {
	a, b := key(t, kv), key(t, kv)
	incr(t, kv, a, 1)
	incr(t, kv, a, 2)
	incr(t, kv, b, 1)
	wantCount(t, kv, a, 2)
	wantCount(t, kv, b, 1)
}

func delResets(t *testing.T, kv backend.KV) {
	a, b, never := key(t, kv), key(t, kv), key(t, kv)
	incr(t, kv, a, 1)
	incr(t, kv, b, 1)
	if err := kv.Del(testContext(t), a, b, never); err != nil {
		t.Fatalf("Del of two keys and a missing one: %v", err)
	}
	wantCount(t, kv, a, -1)
	wantCount(t, kv, b, -1)
	incr(t, kv, a, 1)
	if err := kv.Del(testContext(t)); err != nil {
		t.Fatalf("Del of no keys: %v", err)
	}
}

func endedContextChangesNothing(t *testing.T, kv backend.KV) {
	k := key(t, kv)
	incr(t, kv, k, 1)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if n, err := kv.Incr(ctx, k); !errors.Is(err, context.Canceled) {
		t.Fatalf("Incr with an ended context = %d, %v; want context.Canceled", n, err)
	}
	if _, _, err := kv.Get(ctx, k); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with an ended context: %v; want context.Canceled", err)
	}
	if err := kv.Del(ctx, k); !errors.Is(err, context.Canceled) {
		t.Fatalf("Del with an ended context: %v; want context.Canceled", err)
	}
	wantCount(t, kv, k, 1)
}

func kvClosedFails(t *testing.T, kv backend.KV) {
	k := uniqueName("iobench-conf-") // nothing to delete: a closed KV counts nothing
	if err := kv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := kv.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx := testContext(t)
	if _, err := kv.Incr(ctx, k); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Incr after Close: %v; want backend.ErrClosed", err)
	}
	if _, _, err := kv.Get(ctx, k); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Get after Close: %v; want backend.ErrClosed", err)
	}
}
