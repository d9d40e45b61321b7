package open

// The backends linked into every program that imports this package: each registers its URL
// schemes in its own init. This is the one place that names them.
//
// The KV and WorkQueue backends (memcached, redis, zmq) are not linked here but by the
// programs and workloads that use them (import _ ".../internal/backend/redis"): iobench links
// this package, and each store client adds to its start-up RSS (go-redis, since replaced by
// iobench's own Redis client, and zmq4 added about 5 MiB: 17 -> 22 MiB for `iobench version`),
// which the peak of `iobench http` includes up to its hand-off to the lean image
// (BENCHMARKS.md: at most 20 MiB). TestLinksNoStoreClients keeps it so.
import (
	_ "github.com/iobench/iobench/internal/backend/amqp"
	_ "github.com/iobench/iobench/internal/backend/nats"
	_ "github.com/iobench/iobench/internal/backend/postgres"
	_ "github.com/iobench/iobench/internal/backend/sqlite"
)
