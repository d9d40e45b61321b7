package postgres

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

func init() {
	backend.Databases.Register(func(ctx context.Context, rawURL string, o backend.Options) (backend.SQL, error) {
		return Open(ctx, rawURL, Options{MaxConns: o.MaxConns})
	}, "postgres", "postgresql")
}
