package amqp

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

// schemes are the URL schemes Open accepts.
var schemes = []string{"amqp", "amqps"}

func init() {
	backend.Brokers.Register(func(ctx context.Context, rawURL string, _ backend.Options) (backend.Broker, error) {
		return Open(ctx, rawURL)
	}, schemes...)
}
