package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
)

// Broker runs the broker suite. open must return a connected Broker for the subtest it is
// given; the suite closes it.
func Broker(t *testing.T, open func(t *testing.T) backend.Broker) {
	cases := []struct {
		name string
		run  func(t *testing.T, b backend.Broker)
	}{
		{"DeclareIsIdempotent", declareIsIdempotent},
		{"DeclareWithOtherDurabilityFails", declareWithOtherDurabilityFails},
		{"MissingQueue", missingQueue},
		{"PublishConsumeExactlyOnce", publishConsumeExactlyOnce},
		{"PublishAllInOrder", publishAllInOrder},
		{"ConfirmedPublishesAreCounted", confirmedPublishesAreCounted},
		{"ConcurrentConfirmedPublishers", concurrentConfirmedPublishers},
		{"ConfirmWindowBoundsUnconfirmed", confirmWindowBoundsUnconfirmed},
		{"ConfirmWindowOfOne", confirmWindowOfOne},
		{"ConfirmWithoutWindowWaitsForEach", confirmWithoutWindowWaitsForEach},
		{"ConcurrentWindowedPublishers", concurrentWindowedPublishers},
		{"CountsWithoutConfirms", countsWithoutConfirms},
		{"BadWindowRefused", badWindowRefused},
		{"PublishAfterCloseFails", publishAfterCloseFails},
		{"NackRequeueRedelivers", nackRequeueRedelivers},
		{"NackDiscardDrops", nackDiscardDrops},
		{"AckAllInAnyOrder", ackAllInAnyOrder},
		{"PrefetchBoundsUnacked", prefetchBoundsUnacked},
		{"ConsumersShareAQueue", consumersShareAQueue},
		{"PersistentOnDurableQueue", persistentOnDurableQueue},
		{"DeleteQueue", deleteQueue},
		{"DeleteQueueEndsConsumer", deleteQueueEndsConsumer},
		{"CloseEndsDeliveries", closeEndsDeliveries},
		{"ContextEndsDeliveries", contextEndsDeliveries},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			t.Cleanup(func() {
				if err := b.Close(); err != nil {
					t.Errorf("Broker.Close: %v", err)
				}
			})
			tc.run(t, b)
		})
	}
}

// declare declares a fresh queue and deletes it when the test ends.
func declare(t *testing.T, b backend.Broker, durable bool) string {
	t.Helper()
	name := uniqueName("iobench-conf-")
	if err := b.DeclareQueue(testContext(t), backend.Queue{Name: name, Durable: durable}); err != nil {
		t.Fatalf("DeclareQueue(%q): %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := b.DeleteQueue(ctx, name); err != nil {
			t.Errorf("DeleteQueue(%q): %v", name, err)
		}
	})
	return name
}

func publisher(t *testing.T, b backend.Broker, cfg backend.PublisherConfig) backend.Publisher {
	t.Helper()
	p, err := b.Publisher(testContext(t), cfg)
	if err != nil {
		t.Fatalf("Publisher(%+v): %v", cfg, err)
	}
	return p
}

func consumer(t *testing.T, b backend.Broker, queue string, prefetch int) backend.Consumer {
	t.Helper()
	c, err := b.Consumer(testContext(t), backend.ConsumerConfig{Queue: queue, Prefetch: prefetch})
	if err != nil {
		t.Fatalf("Consumer(%q, prefetch %d): %v", queue, prefetch, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// publishN publishes msg-0 .. msg-(n-1) and closes the publisher.
func publishN(t *testing.T, b backend.Broker, cfg backend.PublisherConfig, n int) {
	t.Helper()
	ctx := testContext(t)
	p := publisher(t, b, cfg)
	for i := range n {
		if err := p.Publish(ctx, fmt.Appendf(nil, "msg-%d", i)); err != nil {
			t.Fatalf("Publish #%d: %v", i, err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Publisher.Close: %v", err)
	}
}

func depth(t *testing.T, b backend.Broker, queue string) int64 {
	t.Helper()
	n, err := b.Depth(testContext(t), queue)
	if err != nil {
		t.Fatalf("Depth(%q): %v", queue, err)
	}
	return n
}

// depthBecomes waits until the queue's depth is want.
func depthBecomes(t *testing.T, b backend.Broker, queue string, want int64) {
	t.Helper()
	eventually(t, fmt.Sprintf("Depth(%q) == %d", queue, want), func() (bool, string) {
		n := depth(t, b, queue)
		return n == want, fmt.Sprintf("depth %d", n)
	})
}

func declareIsIdempotent(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	if err := b.DeclareQueue(testContext(t), backend.Queue{Name: q}); err != nil {
		t.Fatalf("second DeclareQueue: %v", err)
	}
	if n := depth(t, b, q); n != 0 {
		t.Fatalf("Depth of a new queue = %d, want 0", n)
	}
}

func declareWithOtherDurabilityFails(t *testing.T, b backend.Broker) {
	q := declare(t, b, true)
	if err := b.DeclareQueue(testContext(t), backend.Queue{Name: q, Durable: false}); err == nil {
		t.Fatal("redeclaring a durable queue as transient: no error")
	}
	// The failure must not break the Broker.
	if n := depth(t, b, q); n != 0 {
		t.Fatalf("Depth = %d, want 0", n)
	}
}

func missingQueue(t *testing.T, b backend.Broker) {
	name := uniqueName("iobench-conf-missing-")
	ctx := testContext(t)
	if _, err := b.Depth(ctx, name); !errors.Is(err, backend.ErrQueueNotFound) {
		t.Fatalf("Depth of a missing queue: err = %v, want ErrQueueNotFound", err)
	}
	if err := b.DeleteQueue(ctx, name); err != nil {
		t.Fatalf("DeleteQueue of a missing queue: %v", err)
	}
	if c, err := b.Consumer(ctx, backend.ConsumerConfig{Queue: name, Prefetch: 1}); err == nil {
		_ = c.Close()
		t.Fatal("Consumer of a missing queue: no error")
	}
	// The Broker still works after those failures.
	q := declare(t, b, false)
	if n := depth(t, b, q); n != 0 {
		t.Fatalf("Depth = %d, want 0", n)
	}
}

func publishConsumeExactlyOnce(t *testing.T, b backend.Broker) {
	const n = 2000
	q := declare(t, b, false)
	start := time.Now()
	publishN(t, b, backend.PublisherConfig{Queue: q}, n)
	pubTime := time.Since(start)
	depthBecomes(t, b, q, n)

	c := consumer(t, b, q, 100)
	seen := make(map[string]bool, n)
	start = time.Now()
	for range n {
		d := recv(t, c)
		body := string(d.Body())
		if seen[body] {
			t.Fatalf("duplicate delivery %q", body)
		}
		seen[body] = true
		if d.Redelivered() {
			t.Errorf("first delivery of %q marked redelivered", body)
		}
		if err := d.Ack(); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
	conTime := time.Since(start)
	for i := range n {
		if !seen[fmt.Sprintf("msg-%d", i)] {
			t.Fatalf("msg-%d never delivered", i)
		}
	}
	t.Logf("%d messages: publish %.0f msg/s (client side, no confirms), consume+ack %.0f msg/s (prefetch 100)",
		n, n/pubTime.Seconds(), n/conTime.Seconds())
	depthBecomes(t, b, q, 0)

	// Nothing else is pending: a message published now is the next delivery.
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, 1)
	d := recv(t, c)
	if got := string(d.Body()); got != "msg-0" || d.Redelivered() {
		t.Fatalf("after draining, next delivery = %q (redelivered %v), want the fresh msg-0", got, d.Redelivered())
	}
	if err := d.Ack(); err != nil {
		t.Fatalf("Ack: %v", err)
	}
}

// publishAllInOrder publishes batches (backend.PublishAll), with and without confirms.
func publishAllInOrder(t *testing.T, b backend.Broker) {
	const n = 60
	q := declare(t, b, false)
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, "msg-%d", i)
	}
	for _, confirm := range []bool{false, true} {
		p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: confirm})
		for i := 0; i < n; i += 20 {
			if err := backend.PublishAll(testContext(t), p, bodies[i:i+20]); err != nil {
				t.Fatalf("PublishAll (confirm %v): %v", confirm, err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatalf("Publisher.Close: %v", err)
		}
	}
	c := consumer(t, b, q, n)
	for i := range 2 * n {
		d := recv(t, c)
		if want := fmt.Sprintf("msg-%d", i%n); string(d.Body()) != want {
			t.Fatalf("delivery %d = %q, want %q", i, d.Body(), want)
		}
		if err := d.Ack(); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
	depthBecomes(t, b, q, 0)
}

func confirmedPublishesAreCounted(t *testing.T, b backend.Broker) {
	const n = 300
	q := declare(t, b, false)
	start := time.Now()
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, n)
	t.Logf("%d confirmed publishes, one at a time: %.0f msg/s", n, n/time.Since(start).Seconds())
	// Every confirmed publish is already counted: no waiting.
	if got := depth(t, b, q); got != n {
		t.Fatalf("Depth right after %d confirmed publishes = %d", n, got)
	}
}

func concurrentConfirmedPublishers(t *testing.T, b backend.Broker) {
	const pubs, each = 4, 100
	q := declare(t, b, false)
	ctx := testContext(t)
	var wg sync.WaitGroup
	errs := make(chan error, pubs)
	for range pubs {
		p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: true})
		wg.Go(func() {
			defer p.Close()
			for i := range each {
				if err := p.Publish(ctx, fmt.Appendf(nil, "m%d", i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Publish: %v", err)
	}
	if got := depth(t, b, q); got != pubs*each {
		t.Fatalf("Depth after %d confirmed publishes from %d publishers = %d", pubs*each, pubs, got)
	}
}

func nackRequeueRedelivers(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, 1)
	c := consumer(t, b, q, 1)
	d := recv(t, c)
	if d.Redelivered() {
		t.Fatal("first delivery marked redelivered")
	}
	if err := d.Nack(true); err != nil {
		t.Fatalf("Nack(requeue): %v", err)
	}
	if err := d.Ack(); err == nil {
		t.Fatal("Ack after Nack: no error")
	}
	d2 := recv(t, c)
	if string(d2.Body()) != "msg-0" {
		t.Fatalf("redelivered body %q, want msg-0", d2.Body())
	}
	if !d2.Redelivered() {
		t.Fatal("second delivery not marked redelivered")
	}
	if err := d2.Ack(); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	depthBecomes(t, b, q, 0)
}

func nackDiscardDrops(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, 1)
	c := consumer(t, b, q, 1)
	if err := recv(t, c).Nack(false); err != nil {
		t.Fatalf("Nack(discard): %v", err)
	}
	// The dropped message does not come back: the next delivery is a new one.
	p := publisher(t, b, backend.PublisherConfig{Queue: q, Confirm: true})
	defer p.Close()
	if err := p.Publish(testContext(t), []byte("fresh")); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	d := recv(t, c)
	if string(d.Body()) != "fresh" {
		t.Fatalf("next delivery %q (redelivered %v), want fresh", d.Body(), d.Redelivered())
	}
	if err := d.Ack(); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	depthBecomes(t, b, q, 0)
}

func ackAllInAnyOrder(t *testing.T, b backend.Broker) {
	const n = 40
	q := declare(t, b, false)
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, n)
	c, err := b.Consumer(testContext(t), backend.ConsumerConfig{Queue: q, Prefetch: n, AckBacklog: 8})
	if err != nil {
		t.Fatalf("Consumer: %v", err)
	}
	ds := make([]backend.Delivery, n)
	for i := range ds {
		ds[i] = recv(t, c)
	}
	// Out of order, in batches, one alone: the odd ones first, then the even ones newest first.
	var order []backend.Delivery
	for i := 1; i < n; i += 2 {
		order = append(order, ds[i])
	}
	for i := n - 2; i > 0; i -= 2 {
		order = append(order, ds[i])
	}
	for len(order) > 0 {
		k := min(3, len(order))
		if err := backend.AckAll(c, order[:k]); err != nil {
			t.Fatalf("AckAll: %v", err)
		}
		order = order[k:]
	}
	if err := ds[0].Ack(); err != nil {
		t.Fatalf("Ack of the oldest: %v", err)
	}
	if err := backend.AckAll(c, ds[5:6]); err == nil {
		t.Fatal("AckAll of an acked delivery: no error")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Nothing was requeued when the consumer closed: every delivery was acked.
	depthBecomes(t, b, q, 0)
	select {
	case d := <-consumer(t, b, q, n).Deliveries():
		t.Fatalf("delivery %q (redelivered %v) after every delivery was acked", d.Body(), d.Redelivered())
	case <-time.After(300 * time.Millisecond):
	}
}

func prefetchBoundsUnacked(t *testing.T, b backend.Broker) {
	const n, prefetch = 20, 5
	q := declare(t, b, false)
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, n)
	c := consumer(t, b, q, prefetch)
	held := make([]backend.Delivery, 0, n)
	for range prefetch {
		held = append(held, recv(t, c))
	}
	// The broker hands out exactly prefetch messages and keeps the rest ready.
	depthBecomes(t, b, q, n-prefetch)
	select {
	case d := <-c.Deliveries():
		t.Fatalf("delivery %q beyond prefetch %d while %d are unacked", d.Body(), prefetch, prefetch)
	default:
	}
	// Each ack lets exactly one more through.
	if err := held[0].Ack(); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	held = append(held[1:], recv(t, c))
	depthBecomes(t, b, q, n-prefetch-1)
	for _, d := range held {
		if err := d.Ack(); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
	for range n - prefetch - 1 {
		if err := recv(t, c).Ack(); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
	depthBecomes(t, b, q, 0)
}

func consumersShareAQueue(t *testing.T, b backend.Broker) {
	const n, prefetch = 200, 5
	q := declare(t, b, false)
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, n)
	c1 := consumer(t, b, q, prefetch)
	c2 := consumer(t, b, q, prefetch)
	seen := make(map[string]bool, n)
	var got [2]int
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	for len(seen) < n {
		var d backend.Delivery
		var ok bool
		var i int
		select {
		case d, ok = <-c1.Deliveries():
		case d, ok = <-c2.Deliveries():
			i = 1
		case <-tm.C:
			t.Fatalf("%d of %d messages after %s", len(seen), n, timeout)
		}
		if !ok {
			t.Fatalf("consumer %d closed early", i+1)
		}
		if seen[string(d.Body())] {
			t.Fatalf("duplicate delivery %q", d.Body())
		}
		seen[string(d.Body())] = true
		got[i]++
		if err := d.Ack(); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
	t.Logf("two consumers of one queue received %d and %d of %d", got[0], got[1], n)
	depthBecomes(t, b, q, 0)
}

func persistentOnDurableQueue(t *testing.T, b backend.Broker) {
	const n = 50
	q := declare(t, b, true)
	publishN(t, b, backend.PublisherConfig{Queue: q, Persistent: true, Confirm: true}, n)
	if got := depth(t, b, q); got != n {
		t.Fatalf("Depth = %d, want %d", got, n)
	}
	c := consumer(t, b, q, 10)
	for i := range n {
		d := recv(t, c)
		if want := fmt.Sprintf("msg-%d", i); string(d.Body()) != want {
			t.Fatalf("delivery %d = %q, want %q (a single publisher's messages arrive in order)", i, d.Body(), want)
		}
		if err := d.Ack(); err != nil {
			t.Fatalf("Ack: %v", err)
		}
	}
	depthBecomes(t, b, q, 0)
}

func deleteQueue(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, 5)
	ctx := testContext(t)
	if err := b.DeleteQueue(ctx, q); err != nil {
		t.Fatalf("DeleteQueue: %v", err)
	}
	if _, err := b.Depth(ctx, q); !errors.Is(err, backend.ErrQueueNotFound) {
		t.Fatalf("Depth after delete: err = %v, want ErrQueueNotFound", err)
	}
	if err := b.DeleteQueue(ctx, q); err != nil {
		t.Fatalf("second DeleteQueue: %v", err)
	}
	// Declared again, it starts empty.
	if err := b.DeclareQueue(ctx, backend.Queue{Name: q}); err != nil {
		t.Fatalf("DeclareQueue after delete: %v", err)
	}
	if n := depth(t, b, q); n != 0 {
		t.Fatalf("Depth of the re-declared queue = %d, want 0", n)
	}
}

func deleteQueueEndsConsumer(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	c := consumer(t, b, q, 1)
	if err := b.DeleteQueue(testContext(t), q); err != nil {
		t.Fatalf("DeleteQueue: %v", err)
	}
	closed(t, c)
	if err := backend.ConsumerErr(c); err == nil {
		t.Fatal("Err of a consumer whose queue was deleted = nil, want the cause")
	} else {
		t.Logf("Err: %v", err)
	}
}

func closeEndsDeliveries(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	c := consumer(t, b, q, 1)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	closed(t, c)
	if err := backend.ConsumerErr(c); err != nil {
		t.Fatalf("Err after Close = %v, want nil", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// An unacked delivery of a closed consumer goes back to the queue at once.
	publishN(t, b, backend.PublisherConfig{Queue: q, Confirm: true}, 1)
	c2 := consumer(t, b, q, 1)
	_ = recv(t, c2)
	if err := c2.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	c3 := consumer(t, b, q, 1)
	d := recv(t, c3)
	if string(d.Body()) != "msg-0" || !d.Redelivered() {
		t.Fatalf("after Close, got %q redelivered=%v, want msg-0 redelivered", d.Body(), d.Redelivered())
	}
	if err := d.Ack(); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	depthBecomes(t, b, q, 0)
}

func contextEndsDeliveries(t *testing.T, b backend.Broker) {
	q := declare(t, b, false)
	ctx, cancel := context.WithCancel(testContext(t))
	c, err := b.Consumer(ctx, backend.ConsumerConfig{Queue: q, Prefetch: 1})
	if err != nil {
		t.Fatalf("Consumer: %v", err)
	}
	defer c.Close()
	cancel()
	closed(t, c)
	if err := backend.ConsumerErr(c); err != nil {
		t.Fatalf("Err after the context ended = %v, want nil", err)
	}
}
