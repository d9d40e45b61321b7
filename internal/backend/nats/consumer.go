package nats

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/iobench/iobench/internal/backend"
)

// defaultPrefetch is used for a Prefetch of 0; it is JetStream's default MaxAckPending.
const defaultPrefetch = 1000

// ErrAlreadyAcknowledged is returned by Ack or Nack on a delivery that was already settled.
var ErrAlreadyAcknowledged = errors.New("nats: delivery already acknowledged")

// Consumer pulls from a queue's shared durable consumer and holds at most Prefetch
// unacknowledged deliveries. It implements backend.Consumer and backend.ErrReporter.
type Consumer struct {
	b        *Broker
	queue    string
	stream   string
	prefetch int
	cons     jetstream.Consumer
	slots    chan struct{} // one token per delivery handed out and not yet settled
	out      chan backend.Delivery
	cancel   context.CancelFunc // ends the pulling goroutine
	lost     chan natsgo.Status // receives CLOSED when the connection closes for good
	done     chan struct{}      // closed when the pulling goroutine has exited

	closeOnce sync.Once
	mu        sync.Mutex             // guards err and held
	err       error                  // why Deliveries closed, when not by Close or ctx
	held      map[*delivery]struct{} // handed out, not yet settled
}

var (
	_ backend.Consumer    = (*Consumer)(nil)
	_ backend.ErrReporter = (*Consumer)(nil)
)

// Consumer creates or updates the queue's durable consumer (explicit acks, MaxAckPending =
// the sum of the Prefetch of this Broker's open Consumers of the queue) and starts pulling.
// A Prefetch of 0 means 1000. It stops when ctx ends or Close is called.
func (b *Broker) Consumer(ctx context.Context, cfg backend.ConsumerConfig) (backend.Consumer, error) {
	if cfg.Prefetch < 0 {
		return nil, fmt.Errorf("nats: consumer prefetch %d: must be 0 (default) or more", cfg.Prefetch)
	}
	prefetch := cfg.Prefetch
	if prefetch == 0 {
		prefetch = defaultPrefetch
	}
	stream := streamName(cfg.Queue)
	b.mu.Lock()
	total := b.prefetch[stream] + prefetch
	cons, err := b.js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
		Durable:       durableName,
		AckPolicy:     jetstream.AckExplicitPolicy,
		MaxAckPending: total,
	})
	if err == nil {
		b.prefetch[stream] = total
	}
	b.mu.Unlock()
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("nats: consume queue %q: %w", cfg.Queue, backend.ErrQueueNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("nats: consume queue %q: %w", cfg.Queue, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	c := &Consumer{
		b:        b,
		queue:    cfg.Queue,
		stream:   stream,
		prefetch: prefetch,
		cons:     cons,
		slots:    make(chan struct{}, prefetch),
		out:      make(chan backend.Delivery),
		cancel:   cancel,
		lost:     b.nc.StatusChanged(natsgo.CLOSED),
		done:     make(chan struct{}),
		held:     make(map[*delivery]struct{}, prefetch),
	}
	go c.pull(runCtx)
	return c, nil
}

// release takes a closed Consumer's prefetch out of the queue's MaxAckPending sum; the
// durable consumer is updated when the next Consumer opens.
func (b *Broker) release(stream string, prefetch int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prefetch[stream] -= prefetch; b.prefetch[stream] <= 0 {
		delete(b.prefetch, stream)
	}
}

// fetchWait is how long one pull request waits at the server for messages. It bounds how
// often an idle Consumer asks again and how long messages can still arrive after Close.
const fetchWait = time.Second

// pull issues one pull request at a time, for as many messages as the Consumer has free slots,
// and hands what arrives to Deliveries until ctx ends or pulling fails for good.
//
// Why not the client's Messages or Consume iterators: they refill their buffer from a
// background goroutine and re-check only when a message arrives, so when MaxAckPending holds
// the server back, a refill skipped in that window is never retried and the consumer stalls
// until its heartbeat times out (observed with nats.go v1.55 under -race). A request per batch
// has no such state.
func (c *Consumer) pull(ctx context.Context) {
	defer close(c.done)
	defer close(c.out)
	defer c.b.nc.RemoveStatusListener(c.lost)
	for {
		// Wait for one free slot, then take every other free one.
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return
		case <-c.lost:
			c.connectionClosed()
			return
		}
		n := c.takeFreeSlots(1)
		batch, err := c.cons.Fetch(n, jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			c.freeSlots(n)
			if ctx.Err() == nil && !c.waitConnected(ctx, err) {
				return
			}
			continue
		}
		got, stopped := c.deliver(ctx, batch)
		c.freeSlots(n - got)
		if stopped {
			return
		}
		if err := batch.Error(); err != nil && !c.waitConnected(ctx, err) {
			return
		}
	}
}

// takeFreeSlots takes as many more free slots as it can without waiting, up to Prefetch in
// all, and returns how many it holds.
func (c *Consumer) takeFreeSlots(held int) int {
	for held < c.prefetch {
		select {
		case c.slots <- struct{}{}:
			held++
		default:
			return held
		}
	}
	return held
}

func (c *Consumer) freeSlots(n int) {
	for range n {
		<-c.slots
	}
}

// deliver hands the batch's messages to Deliveries; it returns how many it handed out (or
// holds for Close to NAK) and whether ctx ended. Messages still arriving for the batch after
// ctx ends are NAKed, so they are redelivered at once rather than after AckWait.
func (c *Consumer) deliver(ctx context.Context, batch jetstream.MessageBatch) (got int, stopped bool) {
	msgs := batch.Messages()
	for {
		var msg jetstream.Msg
		var ok bool
		select {
		case msg, ok = <-msgs:
			if !ok {
				return got, false
			}
		case <-ctx.Done():
			go nakAll(msgs)
			return got, true
		case <-c.lost:
			c.connectionClosed()
			return got, true
		}
		got++
		d := &delivery{msg: msg, c: c}
		if md, err := msg.Metadata(); err == nil {
			d.redelivered = md.NumDelivered > 1
		}
		c.mu.Lock()
		c.held[d] = struct{}{}
		c.mu.Unlock()
		select {
		case c.out <- d:
		case <-ctx.Done():
			go nakAll(msgs) // d itself is held: Close NAKs it
			return got, true
		case <-c.lost:
			c.connectionClosed()
			return got, true
		}
	}
}

// connectionClosed records that the connection closed for good under the Consumer.
func (c *Consumer) connectionClosed() {
	c.mu.Lock()
	c.err = fmt.Errorf("nats: consumer of %q: %w", c.queue, natsgo.ErrConnectionClosed)
	c.mu.Unlock()
}

// nakAll NAKs every message still coming on msgs, until the pull request ends.
func nakAll(msgs <-chan jetstream.Msg) {
	for msg := range msgs {
		_ = msg.Nak()
	}
}

// recoverWait bounds how long a Consumer waits for JetStream to answer again (e.g. while a
// restarted server recovers its streams) before it gives up with the error.
const recoverWait = 30 * time.Second

// shutdownPause is how long a Consumer waits after a server announced its shutdown before it
// pulls again: time for the client to notice the connection is gone.
const shutdownPause = 100 * time.Millisecond

// waitConnected decides what a pull error means and returns whether to pull again. A request
// that merely expired pulls again. A server announcing its shutdown to a pending pull is about
// to drop the connection: it pauses, then pulls again, which meets the reconnecting client.
// While the client reconnects it waits for the connection.
// When JetStream does not answer (no responders: a server still starting, or the queue
// deleted) it asks for the consumer's info with a growing pause, until the consumer answers
// (pull again) or is reported missing. Anything else (connection closed for good) is recorded
// as the Consumer's error.
func (c *Consumer) waitConnected(ctx context.Context, err error) bool {
	nc := c.b.nc
	if errors.Is(err, natsgo.ErrTimeout) && nc.IsConnected() {
		return true
	}
	if errors.Is(err, jetstream.ErrServerShutdown) {
		select {
		case <-time.After(shutdownPause):
			return true
		case <-ctx.Done():
			return false
		}
	}
	if nc.IsReconnecting() {
		ch := nc.StatusChanged(natsgo.CONNECTED, natsgo.CLOSED)
		defer nc.RemoveStatusListener(ch)
		if nc.IsReconnecting() {
			select {
			case <-ch:
			case <-ctx.Done():
				return false
			}
		}
		if nc.IsConnected() {
			return true
		}
	}
	if nc.IsConnected() && errors.Is(err, natsgo.ErrNoResponders) && c.consumerBack(ctx) {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	c.mu.Lock()
	c.err = fmt.Errorf("nats: consumer of %q: %w", c.queue, err)
	c.mu.Unlock()
	return false
}

// consumerBack asks for the consumer's info until it answers (true), is reported missing,
// ctx ends or recoverWait passes (false).
func (c *Consumer) consumerBack(ctx context.Context) bool {
	deadline := time.Now().Add(recoverWait)
	pause := 10 * time.Millisecond
	for {
		ictx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := c.cons.Info(ictx)
		cancel()
		switch {
		case err == nil:
			return true
		case errors.Is(err, jetstream.ErrConsumerNotFound), errors.Is(err, jetstream.ErrStreamNotFound):
			return false
		case time.Now().After(deadline):
			return false
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
		pause = min(2*pause, time.Second)
	}
}

// Deliveries returns the channel of received messages. It closes after Close, after the
// context given to Broker.Consumer ends (deliveries held can still be acked until Close), or when the consumer fails for good (see Err).
func (c *Consumer) Deliveries() <-chan backend.Delivery { return c.out }

// Err returns why Deliveries closed when it was not Close or the context (the connection
// closed for good, the queue or its consumer was deleted). It is nil otherwise.
func (c *Consumer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close stops pulling and NAKs every delivery not yet settled, so JetStream redelivers them at
// once, as an AMQP broker requeues the unacked messages of a closed channel; acking them
// afterwards returns ErrAlreadyAcknowledged. Ack what you hold before calling it.
func (c *Consumer) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.cancel()
		<-c.done
		c.b.release(c.stream, c.prefetch)
		c.mu.Lock()
		held := make([]*delivery, 0, len(c.held))
		for d := range c.held {
			held = append(held, d)
		}
		c.mu.Unlock()
		for _, d := range held {
			if d.settle() {
				if nerr := d.msg.Nak(); nerr != nil && err == nil {
					err = fmt.Errorf("nats: close consumer of %q: requeue unacked: %w", c.queue, nerr)
				}
			}
		}
	})
	return err
}

// delivery is one received message.
type delivery struct {
	msg         jetstream.Msg
	c           *Consumer
	redelivered bool
	settled     atomic.Bool
}

func (d *delivery) Body() []byte      { return d.msg.Data() }
func (d *delivery) Redelivered() bool { return d.redelivered }

// settle marks d settled and frees its slot; it reports false when d was settled before.
func (d *delivery) settle() bool {
	if d.settled.Swap(true) {
		return false
	}
	d.c.mu.Lock()
	delete(d.c.held, d)
	d.c.mu.Unlock()
	<-d.c.slots
	return true
}

func (d *delivery) Ack() error {
	if !d.settle() {
		return ErrAlreadyAcknowledged
	}
	if err := d.msg.Ack(); err != nil {
		return fmt.Errorf("nats: ack: %w", err)
	}
	return nil
}

func (d *delivery) Nack(requeue bool) error {
	if !d.settle() {
		return ErrAlreadyAcknowledged
	}
	var err error
	if requeue {
		err = d.msg.Nak()
	} else {
		err = d.msg.Term()
	}
	if err != nil {
		return fmt.Errorf("nats: nack: %w", err)
	}
	return nil
}
