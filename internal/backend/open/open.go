package open

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

// Option tunes how a backend connects beyond what its URL says.
type Option func(*backend.Options)

// MaxConns sets the connection pool size when the URL does not (PostgreSQL's pool_max_conns);
// Memcached sizes its pool by it, Redis the connections it keeps idle for blocking pops (its other
// commands share one pipelined connection); SQLite, with its single writer, the brokers and
// ZeroMQ ignore it.
func MaxConns(n int) Option {
	return func(o *backend.Options) { o.MaxConns = n }
}

// QueueName names the queue a WorkQueue opens inside its store (the key of a Redis list);
// ZeroMQ, whose endpoint is the queue, ignores it.
func QueueName(name string) Option {
	return func(o *backend.Options) { o.QueueName = name }
}

func options(opts []Option) backend.Options {
	var o backend.Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Broker connects to the message broker named by rawURL.
func Broker(ctx context.Context, rawURL string, opts ...Option) (backend.Broker, error) {
	return backend.Brokers.Open(ctx, rawURL, options(opts))
}

// SQL opens the database named by rawURL.
func SQL(ctx context.Context, rawURL string, opts ...Option) (backend.SQL, error) {
	return backend.Databases.Open(ctx, rawURL, options(opts))
}

// KV connects to the key-value store named by rawURL, through a backend the program links
// (internal/backend/redis, internal/backend/memcached).
func KV(ctx context.Context, rawURL string, opts ...Option) (backend.KV, error) {
	return backend.KVs.Open(ctx, rawURL, options(opts))
}

// WorkQueue opens the work queue named by rawURL (and QueueName), through a backend the program
// links (internal/backend/redis, internal/backend/zmq).
func WorkQueue(ctx context.Context, rawURL string, opts ...Option) (backend.WorkQueue, error) {
	return backend.WorkQueues.Open(ctx, rawURL, options(opts))
}
