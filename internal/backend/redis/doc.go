// Package redis implements backend.KV and backend.WorkQueue for Redis with
// github.com/redis/go-redis/v9.
//
// The URL is redis://[user:password@]host:port[/db] (rediss:// for TLS): the database number
// comes from the path (redis://127.0.0.1:6379/1 is database 1, as the seed's SELECT 1), 0 when
// absent. The pool size is Options.MaxConns, else go-redis's 10 x GOMAXPROCS. Open pings the
// server, so an unreachable server, a wrong password or a database out of range fail at once with
// one line and a hint, the password masked.
//
// A Client is the KV: Incr is INCR (a missing key counts from 0), Get is GET, Del is DEL. A Queue
// is a list used as a work queue: Push is LPUSH and Pop is BRPOP, so the oldest message comes
// first; Len is LLEN. A long Pop is several BRPOPs of at most 250 ms (Redis takes fractions of a
// second since 6.0), so it sees its context end between them and never outlasts the client's
// 3-second read timeout.
//
// Commands are never retried: an INCR or LPUSH whose reply was lost is an error, not a second
// increment or a duplicate message. A context is checked before each command; a command in flight
// is bounded by the client's timeouts (5 s to dial, 3 s to read and write).
package redis
