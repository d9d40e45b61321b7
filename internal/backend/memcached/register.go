package memcached

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

func init() {
	backend.KVs.Register(func(ctx context.Context, rawURL string, o backend.Options) (backend.KV, error) {
		return Open(ctx, rawURL, Options{MaxConns: o.MaxConns})
	}, "memcached")
}
