package sqlite

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

func init() {
	// SQLite writes through one connection whatever the pool size asked for.
	backend.Databases.Register(func(ctx context.Context, rawURL string, _ backend.Options) (backend.SQL, error) {
		return Open(ctx, rawURL)
	}, "sqlite")
}
