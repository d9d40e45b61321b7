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
	"github.com/iobench/iobench/internal/backend/confirm"
)

// closeTimeout bounds how long Publisher.Close waits for outstanding PubAcks, and how long a
// windowed publish waits for its PubAck before it counts as nacked.
const closeTimeout = 30 * time.Second

// asyncMaxPending is nats.go's default bound on asynchronous publishes awaiting their PubAck.
const asyncMaxPending = 4000

// Publisher publishes to one subject through a JetStream context of its own, so its
// asynchronous publishes are counted apart from other Publishers'. It implements
// backend.Publisher and is not safe for concurrent use (Counts is).
type Publisher struct {
	js       jetstream.JetStream
	subject  string
	header   natsgo.Header // Content-Type, when set
	confirm  bool
	windowed bool // Confirm with a Window: asynchronous publishes settled by the handlers
	win      *confirm.Window
	closed   atomic.Bool

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
	size, err := confirm.Size(cfg)
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	subject := cfg.RoutingKey
	if subject == "" {
		subject = cfg.Queue
	}
	p := &Publisher{subject: subject, confirm: cfg.Confirm, windowed: cfg.Window > 0, win: confirm.New(size)}
	if cfg.ContentType != "" {
		p.header = natsgo.Header{"Content-Type": []string{cfg.ContentType}}
	}
	opts := []jetstream.JetStreamOpt{jetstream.WithPublishAsyncErrHandler(p.asyncFailed)}
	if p.windowed {
		opts = append(opts,
			jetstream.WithPublishAsyncAckHandler(func(jetstream.JetStream, *natsgo.Msg, *jetstream.PubAck) { p.win.Settle(true) }),
			jetstream.WithPublishAsyncTimeout(closeTimeout),
			// The window bounds what is pending; nats.go's own bound must not stall it first.
			jetstream.WithPublishAsyncMaxPending(max(2*cfg.Window, asyncMaxPending)))
	}
	js, err := jetstream.New(b.nc, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats: publisher for %q: %w", subject, err)
	}
	p.js = js
	return p, nil
}

// asyncFailed records an asynchronous publish that JetStream refused or did not acknowledge in
// time; with a Window it counts as nacked.
func (p *Publisher) asyncFailed(_ jetstream.JetStream, _ *natsgo.Msg, err error) {
	p.mu.Lock()
	if p.asyncErr == nil {
		p.asyncErr = err
	}
	p.failed++
	p.mu.Unlock()
	if p.windowed {
		p.win.Settle(false)
	}
}

// Publish sends body. With Confirm and no Window it returns once JetStream stored the message
// (its PubAck), and a failure counts as nacked; with a Window it waits for a free slot and
// returns once the message is handed to the client; without Confirm it returns at once and
// Close reports failures.
func (p *Publisher) Publish(ctx context.Context, body []byte) error {
	if err := p.win.Begin(ctx); err != nil {
		return fmt.Errorf("nats: publish to %q: %w", p.subject, err)
	}
	msg := &natsgo.Msg{Subject: p.subject, Data: body, Header: p.header}
	if p.confirm && !p.windowed {
		_, err := p.js.PublishMsg(ctx, msg)
		p.win.Settle(err == nil)
		if err != nil {
			return p.fail(err)
		}
		return nil
	}
	if _, err := p.js.PublishMsgAsync(msg); err != nil {
		p.win.Undo()
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

// Ready returns once a Publish would not wait for a free confirm slot.
func (p *Publisher) Ready(ctx context.Context) error {
	if err := p.win.Ready(ctx); err != nil {
		return fmt.Errorf("nats: publisher to %q: %w", p.subject, err)
	}
	return nil
}

// Flush waits until JetStream has acknowledged (or refused) every message published so far.
func (p *Publisher) Flush(ctx context.Context) error {
	if p.windowed {
		if err := p.win.Wait(ctx); err != nil {
			return fmt.Errorf("nats: publisher for %q: %w", p.subject, err)
		}
		return nil
	}
	if p.js.PublishAsyncPending() == 0 {
		return nil
	}
	select {
	case <-p.js.PublishAsyncComplete():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("nats: publisher for %q: %d PubAcks still missing: %w", p.subject, p.js.PublishAsyncPending(), ctx.Err())
	}
}

// Counts returns the messages written and, with Confirm, acknowledged and refused so far.
func (p *Publisher) Counts() backend.PublishCounts { return p.win.Counts() }

// Close waits (up to 30 s) for the PubAcks of asynchronous publishes and returns the first
// failure among them; Publish fails with backend.ErrClosed from then on.
func (p *Publisher) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	defer p.js.CleanupPublisher()
	defer p.win.Abort(fmt.Errorf("publisher %w", backend.ErrClosed))
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.asyncErr != nil {
		return fmt.Errorf("nats: publisher for %q: %d asynchronous publishes failed, first: %w", p.subject, p.failed, p.fail(p.asyncErr))
	}
	return nil
}
