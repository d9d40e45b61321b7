package redis

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

// schemes are the URL schemes Open accepts.
var schemes = []string{"redis", "rediss"}

func init() {
	backend.KVs.Register(func(ctx context.Context, rawURL string, o backend.Options) (backend.KV, error) {
		return Open(ctx, rawURL, Options{MaxConns: o.MaxConns})
	}, schemes...)
	backend.WorkQueues.Register(func(ctx context.Context, rawURL string, o backend.Options) (backend.WorkQueue, error) {
		return OpenQueue(ctx, rawURL, o.QueueName, Options{MaxConns: o.MaxConns})
	}, schemes...)
}
