package nats

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/iobench/iobench/internal/backend"
)

// connectTimeout bounds connecting when the context passed to Open has no earlier deadline.
const connectTimeout = 10 * time.Second

// durableName names the one durable consumer every Consumer of a queue shares.
const durableName = "iobench"

// Broker is one NATS connection with JetStream. It implements backend.Broker; its methods
// are safe for concurrent use.
type Broker struct {
	nc       *natsgo.Conn
	js       jetstream.JetStream
	redacted string

	mu       sync.Mutex     // guards prefetch
	prefetch map[string]int // stream name -> sum of Prefetch of the open Consumers
}

var _ backend.Broker = (*Broker)(nil)

// Open connects to the NATS server at rawURL (nats://[user:pass@]host:port) and checks that
// JetStream is enabled. The context bounds the connect and the check.
func Open(ctx context.Context, rawURL string) (*Broker, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("nats: invalid URL (not shown, it may hold a password): %w", err)
	}
	redacted := u.Redacted()
	if u.Scheme != "nats" && u.Scheme != "tls" {
		return nil, fmt.Errorf("nats: URL %s must start with nats://", redacted)
	}
	timeout := connectTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = time.Until(d)
	}
	nc, err := natsgo.Connect(rawURL, natsgo.Name("iobench"), natsgo.Timeout(timeout))
	if err != nil {
		return nil, connectErr(redacted, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: %s: %w", redacted, err)
	}
	if _, err := js.AccountInfo(ctx); err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, fmt.Errorf("nats: JetStream is not enabled at %s; start nats-server with -js or let iobench start an embedded one", redacted)
		}
		return nil, fmt.Errorf("nats: JetStream at %s does not answer: %w", redacted, err)
	}
	return &Broker{nc: nc, js: js, redacted: redacted, prefetch: map[string]int{}}, nil
}

func connectErr(redacted string, err error) error {
	why, hint := err.Error(), "start one with 'iobench services up nats' or pass --nats-url"
	switch {
	case errors.Is(err, natsgo.ErrNoServers):
		why = "no server answers (connection refused)"
	case errors.Is(err, natsgo.ErrAuthorization), errors.Is(err, natsgo.ErrAuthExpired):
		why, hint = "authorization violation (wrong user, password or token)", "check the credentials in --nats-url"
	case errors.Is(err, natsgo.ErrTimeout):
		why = "timed out"
	}
	why = strings.TrimPrefix(why, "nats: ")
	return &backend.ConnectError{Msg: fmt.Sprintf("nats: cannot connect to %s: %s; %s", redacted, why, hint), Err: err}
}

// streamName maps a queue name to a valid stream name.
func streamName(queue string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, queue)
}

// DeclareQueue creates the queue's work-queue stream (file storage when q.Durable, memory
// otherwise). Declaring an existing queue with the same storage is a no-op.
func (b *Broker) DeclareQueue(ctx context.Context, q backend.Queue) error {
	storage := jetstream.MemoryStorage
	if q.Durable {
		storage = jetstream.FileStorage
	}
	name := streamName(q.Name)
	_, err := b.js.CreateStream(ctx, jetstream.StreamConfig{
		Name:      name,
		Subjects:  []string{q.Name},
		Retention: jetstream.WorkQueuePolicy,
		Storage:   storage,
	})
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		s, ierr := b.js.Stream(ctx, name)
		if ierr != nil {
			return fmt.Errorf("nats: declare queue %q: %w", q.Name, ierr)
		}
		cfg := s.CachedInfo().Config
		if cfg.Storage != storage || cfg.Retention != jetstream.WorkQueuePolicy {
			return fmt.Errorf("nats: queue %q already exists as stream %q with other settings (%s storage, %s retention); delete it or declare it as it is",
				q.Name, name, cfg.Storage, cfg.Retention)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("nats: declare queue %q: %w", q.Name, err)
	}
	return nil
}

// DeleteQueue deletes the queue's stream with its messages and consumer; a missing queue is
// not an error.
func (b *Broker) DeleteQueue(ctx context.Context, name string) error {
	err := b.js.DeleteStream(ctx, streamName(name))
	if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("nats: delete queue %q: %w", name, err)
	}
	return nil
}

// Depth returns the messages not yet delivered: the durable consumer's NumPending, or the
// stream's message count when no consumer exists yet.
func (b *Broker) Depth(ctx context.Context, name string) (int64, error) {
	stream := streamName(name)
	ci, err := b.js.Consumer(ctx, stream, durableName)
	switch {
	case err == nil:
		return int64(ci.CachedInfo().NumPending), nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return 0, fmt.Errorf("nats: queue %q: %w", name, backend.ErrQueueNotFound)
	case !errors.Is(err, jetstream.ErrConsumerNotFound):
		return 0, fmt.Errorf("nats: depth of queue %q: %w", name, err)
	}
	s, err := b.js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, fmt.Errorf("nats: queue %q: %w", name, backend.ErrQueueNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("nats: depth of queue %q: %w", name, err)
	}
	return int64(s.CachedInfo().State.Msgs), nil
}

// Close flushes pending acks and closes the connection, ending every Publisher and Consumer
// opened from it (call their Close first to wait for asynchronous publishes).
func (b *Broker) Close() error {
	if b.nc.IsClosed() {
		return nil
	}
	err := b.nc.FlushTimeout(connectTimeout)
	b.nc.Close()
	if err != nil && !errors.Is(err, natsgo.ErrConnectionClosed) {
		return fmt.Errorf("nats: close: %w", err)
	}
	return nil
}
