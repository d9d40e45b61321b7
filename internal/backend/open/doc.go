// Package open opens a backend by URL, so the rest of iobench names services by URL only. It
// links every backend package (backends.go); each registers its URL schemes with a registry of
// package backend in its own init, and Broker, SQL, ... look the scheme up there:
//
//	import "github.com/iobench/iobench/internal/backend/open"
//	db, err := open.SQL(ctx, "postgres://u@127.0.0.1:5432/bench", open.MaxConns(8))
//
// An unknown scheme is a one-line error that lists the schemes this build supports.
package open
