package nats

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

func init() {
	backend.Brokers.Register(func(ctx context.Context, rawURL string, _ backend.Options) (backend.Broker, error) {
		return Open(ctx, rawURL)
	}, "nats")
}
