package open

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

// Option tunes how a backend connects beyond what its URL says.
type Option func(*backend.Options)

// MaxConns sets the connection pool size when the URL does not (PostgreSQL's pool_max_conns);
// SQLite, with its single writer, and the brokers ignore it.
func MaxConns(n int) Option {
	return func(o *backend.Options) { o.MaxConns = n }
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
