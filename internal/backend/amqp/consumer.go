package amqp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
)

// ErrAlreadyAcknowledged is returned by Ack or Nack on a delivery that was already settled;
// sending the second settlement would make the broker close the channel.
var ErrAlreadyAcknowledged = errors.New("amqp: delivery already acknowledged")

// consumerSeq numbers consumer tags within the process.
var consumerSeq atomic.Uint64

// Consumer receives from one queue on a channel of its own, with manual acks. It implements
// backend.Consumer and backend.ErrReporter.
type Consumer struct {
	ch    *amqp091.Channel
	queue string
	tag   string
	out   chan backend.Delivery
	stop  chan struct{} // closed by Close
	done  chan struct{} // closed when the forwarding goroutine has exited

	closeOnce sync.Once
	mu        sync.Mutex
	err       error // why Deliveries closed when not by Close or ctx

	acks acks
}

var (
	_ backend.Consumer    = (*Consumer)(nil)
	_ backend.ErrReporter = (*Consumer)(nil)
	_ backend.BatchAcker  = (*Consumer)(nil)
)

// Consumer opens a channel, sets basic.qos to cfg.Prefetch (0 means unlimited) and starts
// consuming cfg.Queue with manual acks. It stops when ctx ends or Close is called.
func (b *Broker) Consumer(ctx context.Context, cfg backend.ConsumerConfig) (backend.Consumer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.Prefetch < 0 {
		return nil, fmt.Errorf("amqp: consumer prefetch %d: must be 0 (unlimited) or more", cfg.Prefetch)
	}
	ch, err := b.conn.Channel()
	if err != nil {
		return nil, b.wrap("open consumer channel", err)
	}
	closed := ch.NotifyClose(make(chan *amqp091.Error, 1))
	cancelled := ch.NotifyCancel(make(chan string, 1))
	if err := ch.Qos(cfg.Prefetch, 0, false); err != nil {
		_ = ch.Close()
		return nil, b.wrap("set prefetch", err)
	}
	tag := "iobench-" + strconv.FormatUint(consumerSeq.Add(1), 10)
	msgs, err := ch.Consume(cfg.Queue, tag, false, false, false, false, nil)
	if err != nil {
		_ = ch.Close()
		if _, missing := brokerError(err, amqp091.NotFound); missing {
			return nil, fmt.Errorf("amqp: consume queue %q: %w", cfg.Queue, backend.ErrQueueNotFound)
		}
		return nil, b.wrap(fmt.Sprintf("consume queue %q", cfg.Queue), err)
	}
	c := &Consumer{
		ch:    ch,
		queue: cfg.Queue,
		tag:   tag,
		out:   make(chan backend.Delivery),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		acks:  acks{ch: ch, sock: b.sock, backlog: max(cfg.AckBacklog, 0)},
	}
	go c.forward(ctx, b, msgs, closed, cancelled)
	return c, nil
}

// forward moves deliveries from amqp091 to Deliveries until the source closes, Close is
// called or ctx ends, and records why the source closed.
func (c *Consumer) forward(ctx context.Context, b *Broker, msgs <-chan amqp091.Delivery, closed <-chan *amqp091.Error, cancelled <-chan string) {
	defer close(c.done)
	defer close(c.out)
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				c.setErr(c.why(b, closed, cancelled))
				return
			}
			d := &delivery{acks: &c.acks, tag: m.DeliveryTag, body: m.Body, redelivered: m.Redelivered}
			c.acks.add(d)
			select {
			case c.out <- d:
			case <-c.stop:
				return
			case <-ctx.Done():
				c.cancel()
				return
			}
		case <-c.stop:
			return
		case <-ctx.Done():
			c.cancel()
			return
		}
	}
}

// cancel stops deliveries but keeps the channel open so the caller can still ack what it
// holds; Close releases the channel.
func (c *Consumer) cancel() {
	_ = c.ch.Cancel(c.tag, false)
}

// why explains an unexpected end of the delivery stream. amqp091 reports a channel's close
// reason before it closes the delivery channels, so the non-blocking reads below see it.
func (c *Consumer) why(b *Broker, closed <-chan *amqp091.Error, cancelled <-chan string) error {
	select {
	case e, ok := <-closed:
		if ok && e != nil {
			// amqp091 marks the connection closed before it shuts its channels down.
			if b.conn.IsClosed() {
				return fmt.Errorf("amqp: consumer of %q: connection lost: %w", c.queue, e)
			}
			return fmt.Errorf("amqp: consumer of %q: channel closed: %w", c.queue, e)
		}
	default:
	}
	select {
	case <-cancelled:
		return fmt.Errorf("amqp: consumer of %q cancelled by the broker (queue deleted?)", c.queue)
	default:
	}
	if b.conn.IsClosed() {
		return fmt.Errorf("amqp: consumer of %q: connection closed", c.queue)
	}
	return fmt.Errorf("amqp: consumer of %q: delivery stream ended", c.queue)
}

func (c *Consumer) setErr(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

// Deliveries returns the channel of received messages. It closes after Close, after the
// context given to Broker.Consumer ends, or when the channel or connection fails (see Err).
func (c *Consumer) Deliveries() <-chan backend.Delivery { return c.out }

// Err returns why Deliveries closed when it was not Close or the context: the channel or
// connection error (e.g. a broker restart). It is nil otherwise.
func (c *Consumer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// AckBatch acknowledges ds (see backend.BatchAcker): the acked deliveries at the head of those
// not yet acked go out as one multiple ack, the others one by one once more than AckBacklog
// of them wait.
func (c *Consumer) AckBatch(ds []backend.Delivery) error { return c.acks.batch(ds) }

// Close stops the consumer, sends the acks held back and closes its channel; the broker
// requeues deliveries not yet acked. Ack what you hold before calling it.
func (c *Consumer) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.stop)
		<-c.done
		if c.ch.IsClosed() {
			return
		}
		if aerr := c.acks.flush(); aerr != nil {
			err = fmt.Errorf("amqp: close consumer of %q: %w", c.queue, aerr)
		}
		if cerr := c.ch.Close(); cerr != nil && !errors.Is(cerr, amqp091.ErrClosed) {
			err = fmt.Errorf("amqp: close consumer of %q: %w", c.queue, cerr)
		}
	})
	return err
}

// delivery is one received message; it keeps only what Ack and Nack need.
type delivery struct {
	acks        *acks
	tag         uint64
	body        []byte
	redelivered bool
	state       ackState // guarded by acks.mu
}

func (d *delivery) Body() []byte      { return d.body }
func (d *delivery) Redelivered() bool { return d.redelivered }

func (d *delivery) Ack() error {
	return d.acks.one(d, func(ch *amqp091.Channel) error { return ch.Ack(d.tag, false) }, "ack")
}

func (d *delivery) Nack(requeue bool) error {
	return d.acks.one(d, func(ch *amqp091.Channel) error { return ch.Nack(d.tag, false, requeue) }, "nack")
}
