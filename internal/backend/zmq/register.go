package zmq

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
)

func init() {
	backend.WorkQueues.Register(func(ctx context.Context, rawURL string, _ backend.Options) (backend.WorkQueue, error) {
		return Open(ctx, rawURL)
	}, schemes...)
}
