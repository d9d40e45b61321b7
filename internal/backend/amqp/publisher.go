package amqp

import (
	"context"
	"errors"
	"fmt"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
)

// ErrNacked is returned (wrapped) by Publish when the broker negatively acknowledged a
// message in confirm mode: it did not take responsibility for it.
var ErrNacked = errors.New("amqp: broker nacked the message")

// Publisher sends messages on a channel of its own. It implements backend.Publisher and, like
// an AMQP channel, is not safe for concurrent use.
type Publisher struct {
	b        *Broker
	ch       *amqp091.Channel
	closed   chan *amqp091.Error // receives the channel's close reason
	reason   *amqp091.Error      // the close reason, once received
	exchange string
	key      string
	mode     uint8
	confirm  bool
}

var _ backend.Publisher = (*Publisher)(nil)

// Publisher opens a channel for cfg, in confirm mode when cfg.Confirm. Messages go to
// cfg.Exchange (the default exchange when empty) with routing key cfg.RoutingKey, or
// cfg.Queue when that is empty.
func (b *Broker) Publisher(ctx context.Context, cfg backend.PublisherConfig) (backend.Publisher, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
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
		mode:     amqp091.Transient,
		confirm:  cfg.Confirm,
	}
	if cfg.Persistent {
		p.mode = amqp091.Persistent
	}
	if cfg.Confirm {
		if err := ch.Confirm(false); err != nil {
			_ = ch.Close()
			return nil, b.wrap("enable publisher confirms", err)
		}
	}
	return p, nil
}

// Publish sends body. In confirm mode it waits for the broker's ack (or ctx); a nack returns
// an error wrapping ErrNacked.
func (p *Publisher) Publish(ctx context.Context, body []byte) error {
	msg := amqp091.Publishing{Body: body, DeliveryMode: p.mode}
	if !p.confirm {
		if err := p.ch.PublishWithContext(ctx, p.exchange, p.key, false, false, msg); err != nil {
			return p.fail(err)
		}
		return nil
	}
	dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, p.exchange, p.key, false, false, msg)
	if err != nil {
		return p.fail(err)
	}
	acked, err := dc.WaitContext(ctx)
	if err != nil {
		return fmt.Errorf("amqp: publish to %q: waiting for confirm: %w", p.key, err)
	}
	if !acked {
		// amqp091 also resolves pending confirms as nacks when the channel closes.
		if p.ch.IsClosed() {
			return p.fail(amqp091.ErrClosed)
		}
		return fmt.Errorf("amqp: publish to %q: %w", p.key, ErrNacked)
	}
	return nil
}

// fail wraps a publish error with the channel's or connection's close reason when there is one.
func (p *Publisher) fail(err error) error {
	if p.reason == nil {
		select {
		case e, ok := <-p.closed:
			if ok {
				p.reason = e
			}
		default:
		}
	}
	if p.reason != nil {
		return fmt.Errorf("amqp: publish to %q: channel closed (%s): %w", p.key, p.reason.Reason, err)
	}
	return p.b.wrap(fmt.Sprintf("publish to %q", p.key), err)
}

// Close closes the publisher's channel. In confirm mode every Publish has already been
// confirmed; without confirms, messages already written are delivered by the broker.
func (p *Publisher) Close() error {
	if p.ch.IsClosed() {
		return nil
	}
	if err := p.ch.Close(); err != nil && !errors.Is(err, amqp091.ErrClosed) {
		return fmt.Errorf("amqp: close publisher: %w", err)
	}
	return nil
}
