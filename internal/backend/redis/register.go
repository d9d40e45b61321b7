package redis

import (
	"context"

	goredis "github.com/redis/go-redis/v9"

	"github.com/iobench/iobench/internal/backend"
)

// schemes are the URL schemes Open accepts.
var schemes = []string{"redis", "rediss"}

func init() {
	// go-redis logs to stderr (a failed dial, a pool event); iobench is quiet by default and
	// reports errors itself.
	goredis.SetLogger(quiet{})
	backend.KVs.Register(func(ctx context.Context, rawURL string, o backend.Options) (backend.KV, error) {
		return Open(ctx, rawURL, Options{MaxConns: o.MaxConns})
	}, schemes...)
	backend.WorkQueues.Register(func(ctx context.Context, rawURL string, o backend.Options) (backend.WorkQueue, error) {
		return OpenQueue(ctx, rawURL, o.QueueName, Options{MaxConns: o.MaxConns})
	}, schemes...)
}

// quiet is a go-redis logger that drops everything.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
