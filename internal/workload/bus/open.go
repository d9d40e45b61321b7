package bus

import (
	"context"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
)

// openBroker connects to the broker at url (amqp:// or nats://).
func openBroker(ctx context.Context, url string) (backend.Broker, error) {
	return open.Broker(ctx, url)
}

// openSQL opens a pool of at most conns connections (unless the URL sets pool_max_conns) to the
// database at url; SQLite writes through one connection whatever the pool.
func openSQL(ctx context.Context, url string, conns int) (backend.SQL, error) {
	return open.SQL(ctx, url, open.MaxConns(conns))
}
