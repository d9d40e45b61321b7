package nats

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/iobench/iobench/internal/backend"
)

// closeTimeout bounds how long Publisher.Close waits for outstanding PubAcks.
const closeTimeout = 30 * time.Second

// Publisher publishes to one subject through a JetStream context of its own, so its
// asynchronous publishes are counted apart from other Publishers'. It implements
// backend.Publisher and is not safe for concurrent use.
type Publisher struct {
	js      jetstream.JetStream
	subject string
	confirm bool

	mu       sync.Mutex // guards asyncErr and failed, written by the async error handler
	asyncErr error
	failed   int
}

var _ backend.Publisher = (*Publisher)(nil)

// Publisher returns a Publisher for cfg.Queue (or cfg.RoutingKey when set, as the subject).
// An AMQP exchange cannot be honoured: cfg.Exchange must be empty.
func (b *Broker) Publisher(ctx context.Context, cfg backend.PublisherConfig) (backend.Publisher, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.Exchange != "" {
		return nil, fmt.Errorf("nats: publish through exchange %q: %w; publish to a queue", cfg.Exchange, backend.ErrUnsupported)
	}
	subject := cfg.RoutingKey
	if subject == "" {
		subject = cfg.Queue
	}
	p := &Publisher{subject: subject, confirm: cfg.Confirm}
	js, err := jetstream.New(b.nc, jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, _ *natsgo.Msg, err error) {
		p.mu.Lock()
		if p.asyncErr == nil {
			p.asyncErr = err
		}
		p.failed++
		p.mu.Unlock()
	}))
	if err != nil {
		return nil, fmt.Errorf("nats: publisher for %q: %w", subject, err)
	}
	p.js = js
	return p, nil
}

// Publish sends body. With Confirm it returns once JetStream stored the message (its PubAck);
// without, it returns once the message is handed to the client and Close reports failures.
func (p *Publisher) Publish(ctx context.Context, body []byte) error {
	if !p.confirm {
		if _, err := p.js.PublishAsync(p.subject, body); err != nil {
			return p.fail(err)
		}
		return nil
	}
	if _, err := p.js.Publish(ctx, p.subject, body); err != nil {
		return p.fail(err)
	}
	return nil
}

func (p *Publisher) fail(err error) error {
	if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, natsgo.ErrNoResponders) {
		return fmt.Errorf("nats: publish to %q: no stream takes this subject; declare the queue first: %w", p.subject, err)
	}
	return fmt.Errorf("nats: publish to %q: %w", p.subject, err)
}

// Close waits (up to 30 s) for the PubAcks of asynchronous publishes and returns the first
// failure among them.
func (p *Publisher) Close() error {
	defer p.js.CleanupPublisher()
	if n := p.js.PublishAsyncPending(); n > 0 {
		t := time.NewTimer(closeTimeout)
		defer t.Stop()
		select {
		case <-p.js.PublishAsyncComplete():
		case <-t.C:
			return fmt.Errorf("nats: publisher for %q: %d publishes still unacknowledged after %s", p.subject, p.js.PublishAsyncPending(), closeTimeout)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.asyncErr != nil {
		return fmt.Errorf("nats: publisher for %q: %d asynchronous publishes failed, first: %w", p.subject, p.failed, p.fail(p.asyncErr))
	}
	return nil
}
