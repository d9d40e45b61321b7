package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
)

// WorkQueue runs the work-queue suite. open must return a WorkQueue for the subtest, on a queue
// of its own named name (a backend whose queue is its endpoint may ignore the name), ready for
// Push and Pop; the suite closes it. Each test leaves the queue empty.
func WorkQueue(t *testing.T, open func(t *testing.T, name string) backend.WorkQueue) {
	cases := []struct {
		name string
		run  func(t *testing.T, q backend.WorkQueue)
	}{
		{"OldestFirst", oldestFirst},
		{"BodiesUnchanged", bodiesUnchanged},
		{"PopWaitsForTimeout", popWaitsForTimeout},
		{"PopWaitsForPush", popWaitsForPush},
		{"PopEndsWithContext", popEndsWithContext},
		{"LenOrReceived", lenOrReceived},
		{"ConcurrentPushersAndPoppers", concurrentPushersAndPoppers},
		{"ClosedFails", queueClosedFails},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := open(t, uniqueName("iobench-conf-"))
			t.Cleanup(func() {
				if err := q.Close(); err != nil {
					t.Errorf("WorkQueue.Close: %v", err)
				}
			})
			tc.run(t, q)
		})
	}
}

func push(t *testing.T, q backend.WorkQueue, body []byte) {
	t.Helper()
	if err := q.Push(testContext(t), body); err != nil {
		t.Fatalf("Push(%.20q): %v", body, err)
	}
}

func pop(t *testing.T, q backend.WorkQueue) []byte {
	t.Helper()
	body, err := q.Pop(testContext(t), timeout)
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	return body
}

// empty fails the test unless Pop finds nothing within a short wait.
func empty(t *testing.T, q backend.WorkQueue) {
	t.Helper()
	if body, err := q.Pop(testContext(t), 50*time.Millisecond); !errors.Is(err, backend.ErrNoMessage) {
		t.Fatalf("Pop of an empty queue = %.20q, %v; want backend.ErrNoMessage", body, err)
	}
}

func oldestFirst(t *testing.T, q backend.WorkQueue) {
	const n = 100
	for i := range n {
		push(t, q, strconv.AppendInt(nil, int64(i), 10))
	}
	for i := range n {
		if got := string(pop(t, q)); got != strconv.Itoa(i) {
			t.Fatalf("Pop #%d = %q, want %d: the oldest message first", i, got, i)
		}
	}
	empty(t, q)
}

func bodiesUnchanged(t *testing.T, q backend.WorkQueue) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	bodies := [][]byte{[]byte("visit"), {0, '\r', '\n', 0xff, ' ', 0}, big, {}}
	for _, b := range bodies {
		push(t, q, b)
	}
	for i, want := range bodies {
		if got := pop(t, q); !bytes.Equal(got, want) {
			t.Fatalf("body #%d came back as %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(want), want)
		}
	}
	empty(t, q)
}

func popWaitsForTimeout(t *testing.T, q backend.WorkQueue) {
	const wait = 300 * time.Millisecond
	start := time.Now()
	_, err := q.Pop(testContext(t), wait)
	took := time.Since(start)
	if !errors.Is(err, backend.ErrNoMessage) {
		t.Fatalf("Pop of an empty queue: %v; want backend.ErrNoMessage", err)
	}
	if took < wait || took > wait+2*time.Second {
		t.Fatalf("Pop with a %s timeout returned after %s", wait, took)
	}
	start = time.Now()
	if _, err := q.Pop(testContext(t), 0); !errors.Is(err, backend.ErrNoMessage) || time.Since(start) > time.Second {
		t.Fatalf("Pop without a timeout: %v after %s; want backend.ErrNoMessage at once", err, time.Since(start))
	}
}

func popWaitsForPush(t *testing.T, q backend.WorkQueue) {
	got := make(chan []byte, 1)
	go func() {
		body, err := q.Pop(testContext(t), timeout)
		if err != nil {
			body = []byte(err.Error())
		}
		got <- body
	}()
	time.Sleep(100 * time.Millisecond) // let Pop wait; a push before it is as good, just untested
	push(t, q, []byte("late"))
	if body := <-got; string(body) != "late" {
		t.Fatalf("a waiting Pop got %q, want the message pushed while it waited", body)
	}
}

func popEndsWithContext(t *testing.T, q backend.WorkQueue) {
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := q.Pop(ctx, timeout)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Pop whose context ended after 100ms: %v after %s; want context.DeadlineExceeded soon", err, time.Since(start))
	}
}

func lenOrReceived(t *testing.T, q backend.WorkQueue) {
	for i := range 3 {
		push(t, q, []byte{byte(i)})
	}
	n, err := q.Len(testContext(t))
	known := !errors.Is(err, backend.ErrUnsupported)
	switch {
	case known && err != nil:
		t.Fatalf("Len: %v", err)
	case known && n != 3:
		t.Fatalf("Len after 3 pushes = %d", n)
	}
	pop(t, q)
	if got := q.Received(); got != 1 {
		t.Fatalf("Received after one Pop = %d", got)
	}
	if n, err := q.Len(testContext(t)); known && (err != nil || n != 2) {
		t.Fatalf("Len after 3 pushes and a pop = %d, %v; want 2", n, err)
	}
	pop(t, q)
	pop(t, q)
	empty(t, q)
	if got := q.Received(); got != 3 {
		t.Fatalf("Received after 3 Pops and an empty one = %d", got)
	}
}

func concurrentPushersAndPoppers(t *testing.T, q backend.WorkQueue) {
	const pushers, each, poppers = 4, 250, 3
	var wg sync.WaitGroup
	errs := make(chan error, pushers+poppers)
	for p := range pushers {
		wg.Go(func() {
			ctx := testContext(t)
			for i := range each {
				if err := q.Push(ctx, fmt.Appendf(nil, "%d-%d", p, i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var mu sync.Mutex
	seen := map[string]int{}
	for range poppers {
		wg.Go(func() {
			ctx := testContext(t)
			for {
				body, err := q.Pop(ctx, 500*time.Millisecond)
				if errors.Is(err, backend.ErrNoMessage) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				seen[string(body)]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for p := range pushers {
		for i := range each {
			if n := seen[fmt.Sprintf("%d-%d", p, i)]; n != 1 {
				t.Fatalf("message %d-%d popped %d times, want once", p, i, n)
			}
		}
	}
	if len(seen) != pushers*each || q.Received() != pushers*each {
		t.Fatalf("%d distinct messages popped, Received %d; want %d", len(seen), q.Received(), pushers*each)
	}
}

func queueClosedFails(t *testing.T, q backend.WorkQueue) {
	if err := q.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := q.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx := testContext(t)
	if err := q.Push(ctx, []byte("late")); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Push after Close: %v; want backend.ErrClosed", err)
	}
	if _, err := q.Pop(ctx, 10*time.Millisecond); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Pop after Close: %v; want backend.ErrClosed", err)
	}
	if _, err := q.Len(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Len after Close: %v; want backend.ErrClosed", err)
	}
}
