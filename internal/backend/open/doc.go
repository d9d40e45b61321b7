// Package open opens a backend by URL, so the rest of iobench names services by URL only. It
// links the broker and database packages (backends.go); each registers its URL schemes with a
// registry of package backend in its own init, and Broker, SQL, KV and WorkQueue look the scheme
// up there. The KV and WorkQueue backends are linked by whoever uses them (see backends.go):
//
//	import "github.com/iobench/iobench/internal/backend/open"
//	db, err := open.SQL(ctx, "postgres://u@127.0.0.1:5432/bench", open.MaxConns(8))
//
//	import _ "github.com/iobench/iobench/internal/backend/redis"
//	q, err := open.WorkQueue(ctx, "redis://127.0.0.1:6379/1", open.QueueName("queue"))
//
// An unknown scheme is a one-line error that lists the schemes this build supports.
package open
