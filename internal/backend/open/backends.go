package open

// The backends linked into every program that imports this package: each registers its URL
// schemes in its own init. This is the one place that names them.
import (
	_ "github.com/iobench/iobench/internal/backend/amqp"
	_ "github.com/iobench/iobench/internal/backend/nats"
	_ "github.com/iobench/iobench/internal/backend/postgres"
	_ "github.com/iobench/iobench/internal/backend/sqlite"
)
