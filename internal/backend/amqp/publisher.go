package amqp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/confirm"
)

// ErrNacked is returned (wrapped) by Publish when the broker negatively acknowledged a
// message in confirm mode: it did not take responsibility for it.
var ErrNacked = errors.New("amqp: broker nacked the message")

// Publisher sends messages on a channel of its own. It implements backend.Publisher and, like
// an AMQP channel, is not safe for concurrent use (Counts is).
type Publisher struct {
	b        *Broker
	ch       *amqp091.Channel
	closed   chan *amqp091.Error // receives the channel's close reason
	mu       sync.Mutex          // guards reason: Publish and the confirm listener read it
	reason   *amqp091.Error      // the close reason, once received
	exchange string
	key      string
	msg      amqp091.Publishing // reused: only Body changes between publishes
	win      *confirm.Window
	waitEach bool          // Confirm without a Window: Publish waits for its own confirm
	listened chan struct{} // closed when the confirm listener has returned; nil without confirms
}

var (
	_ backend.Publisher      = (*Publisher)(nil)
	_ backend.BatchPublisher = (*Publisher)(nil)
)

// Publisher opens a channel for cfg, in confirm mode when cfg.Confirm. Messages go to
// cfg.Exchange (the default exchange when empty) with routing key cfg.RoutingKey, or
// cfg.Queue when that is empty.
func (b *Broker) Publisher(ctx context.Context, cfg backend.PublisherConfig) (backend.Publisher, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	size, err := confirm.Size(cfg)
	if err != nil {
		return nil, fmt.Errorf("amqp: %w", err)
	}
	key := cfg.RoutingKey
	if key == "" {
		key = cfg.Queue
	}
	ch, err := b.conn.Channel()
	if err != nil {
		return nil, b.wrap("open publisher channel", err)
	}
	p := &Publisher{
		b:        b,
		ch:       ch,
		closed:   ch.NotifyClose(make(chan *amqp091.Error, 1)),
		exchange: cfg.Exchange,
		key:      key,
		msg:      amqp091.Publishing{ContentType: cfg.ContentType, DeliveryMode: amqp091.Transient},
		win:      confirm.New(size),
		waitEach: cfg.Confirm && cfg.Window == 0,
	}
	if cfg.Persistent {
		p.msg.DeliveryMode = amqp091.Persistent
	}
	if cfg.Confirm {
		if err := ch.Confirm(false); err != nil {
			_ = ch.Close()
			return nil, b.wrap("enable publisher confirms", err)
		}
		// One confirm per message, in order (amqp091 splits multiple acks); the buffer holds
		// a full window, so amqp091's reader never waits for the listener.
		confirms := ch.NotifyPublish(make(chan amqp091.Confirmation, size+1))
		p.listened = make(chan struct{})
		go p.listen(confirms)
	}
	return p, nil
}

// listen settles the window with each confirm until amqp091 closes the listener, which it does
// when the channel closes; confirms still missing then will never come.
func (p *Publisher) listen(confirms <-chan amqp091.Confirmation) {
	defer close(p.listened)
	for c := range confirms {
		p.win.Settle(c.Ack)
	}
	p.win.Abort(p.lost())
}

// Publish sends body. In confirm mode it first waits for a free slot in the window; without a
// Window it then waits for the broker's ack (or ctx), and a nack returns an error wrapping
// ErrNacked.
func (p *Publisher) Publish(ctx context.Context, body []byte) error {
	nacked := p.win.Counts().Nacked
	if err := p.win.Begin(ctx); err != nil {
		return fmt.Errorf("amqp: publish to %q: %w", p.key, err)
	}
	p.msg.Body = body
	err := p.ch.PublishWithContext(ctx, p.exchange, p.key, false, false, p.msg)
	p.msg.Body = nil
	if err != nil {
		p.win.Undo()
		return p.fail(err)
	}
	if !p.waitEach {
		return nil
	}
	if err := p.win.Wait(ctx); err != nil {
		return fmt.Errorf("amqp: publish to %q: waiting for confirm: %w", p.key, err)
	}
	if p.win.Counts().Nacked > nacked {
		return fmt.Errorf("amqp: publish to %q: %w", p.key, ErrNacked)
	}
	return nil
}

// PublishBatch publishes bodies in order. Without confirms they go out in one write (the
// connection's socket is corked meanwhile, see corkConn); with confirms one by one, as Publish.
func (p *Publisher) PublishBatch(ctx context.Context, bodies [][]byte) error {
	if p.listened != nil { // confirms: a publish may wait for the confirm of one still corked
		return backend.PublishEach(ctx, p, bodies)
	}
	p.b.sock.cork()
	err := backend.PublishEach(ctx, p, bodies)
	if uerr := p.b.sock.uncork(); err == nil && uerr != nil {
		err = p.fail(uerr)
	}
	return err
}

// Ready returns once a Publish would not wait for a free confirm slot.
func (p *Publisher) Ready(ctx context.Context) error {
	if err := p.win.Ready(ctx); err != nil {
		return fmt.Errorf("amqp: publisher to %q: %w", p.key, err)
	}
	return nil
}

// Flush waits until every message published so far is confirmed or nacked; without confirms it
// returns at once.
func (p *Publisher) Flush(ctx context.Context) error {
	if err := p.win.Wait(ctx); err != nil {
		return fmt.Errorf("amqp: publisher to %q: %w", p.key, err)
	}
	return nil
}

// Counts returns the messages written and, in confirm mode, acked and nacked so far. Messages
// whose confirm will not come because the channel was lost stay unsettled.
func (p *Publisher) Counts() backend.PublishCounts { return p.win.Counts() }

// fail wraps a publish error with the channel's or connection's close reason when there is one.
func (p *Publisher) fail(err error) error {
	if r := p.closeReason(); r != nil {
		return fmt.Errorf("amqp: publish to %q: channel closed (%s): %w", p.key, r.Reason, err)
	}
	return p.b.wrap(fmt.Sprintf("publish to %q", p.key), err)
}

// lost says why the channel closed under the publisher, for the confirms that will not come.
func (p *Publisher) lost() error {
	if r := p.closeReason(); r != nil {
		return fmt.Errorf("channel closed (%s)", r.Reason)
	}
	return errors.New("channel closed")
}

// closeReason returns why the channel closed, or nil while it is open or closed by Close.
func (p *Publisher) closeReason() *amqp091.Error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reason == nil {
		select {
		case e, ok := <-p.closed:
			if ok {
				p.reason = e
			}
		default:
		}
	}
	return p.reason
}

// Close closes the publisher's channel; Publish fails with backend.ErrClosed from then on.
// Messages not yet confirmed stay unconfirmed (Flush first to wait for them); without confirms,
// messages already written are delivered by the broker.
func (p *Publisher) Close() error {
	p.win.Abort(fmt.Errorf("publisher %w", backend.ErrClosed))
	var err error
	if !p.ch.IsClosed() {
		if cerr := p.ch.Close(); cerr != nil && !errors.Is(cerr, amqp091.ErrClosed) {
			err = fmt.Errorf("amqp: close publisher: %w", cerr)
		}
	}
	if p.listened != nil {
		<-p.listened
	}
	return err
}
