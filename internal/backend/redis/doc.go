// Package redis implements backend.KV and backend.WorkQueue for Redis with a small RESP2 client
// of its own that pipelines automatically.
//
// The URL is redis://[user:password@]host:port[/db] (rediss:// for TLS): the database number
// comes from the path (redis://127.0.0.1:6379/1 is database 1, as the seed's SELECT 1), 0 when
// absent. Open connects and pings the server, so an unreachable server, a wrong password or a
// database out of range fail at once with one line and a hint, the password masked.
//
// A Client shares one connection among all its callers: each command is appended to one output
// buffer, a writer sends whatever has gathered in one write while the previous write is in
// flight, and a reader hands the replies, in order, to the callers waiting for them. Concurrent
// commands thus share syscalls, and Redis reads and answers many per read, which costs it far
// less CPU per command than one command per read. A blocking pop would stall the others, so
// each BRPOP runs on a connection of its own, lent by the client (Options.MaxConns of them are
// kept idle).
//
// A Client is the KV: Incr is INCR (a missing key counts from 0), Get is GET, Del is DEL. A Queue
// is a list used as a work queue: Push is LPUSH and Pop is BRPOP, so the oldest message comes
// first; Len is LLEN. A long Pop is several BRPOPs of at most 250 ms (Redis takes fractions of a
// second since 6.0), so it sees its context end between them.
//
// Commands are never retried: an INCR or LPUSH whose reply was lost is an error, not a second
// increment or a duplicate message. A context is checked before each command; a command in flight
// is bounded by the client's timeouts (5 s to dial, 3 s to write and 3 to 6 s for a reply, plus a
// BRPOP's own wait). An error reply fails its command only; a failed write or read, a reply
// missing its timeout or a protocol error breaks the connection and fails every command waiting
// on it, and the next command dials a new one.
package redis
