// Package memcached implements backend.KV for one Memcached server with
// github.com/bradfitz/gomemcache, a pure-Go client.
//
// gomemcache speaks memcached's text protocol, not the binary one. The seed's PHP client
// switches to the binary protocol for increment('visits', 1, 0), whose initial value makes a
// missing key count from 0 in one command; the text protocol's incr fails on a missing key. So
// Incr is incr, and on a miss add of "1" (the first count), and incr again if another client
// added the key in between: every Incr still returns its own value, at the cost of two more
// round trips the first time a key is counted. Get reads the value back as a decimal number
// (memcached may pad a number that shrank with spaces); Del is delete.
//
// The URL is memcached://host:port (port 11211 when absent). Open asks the server its version,
// so an unreachable server fails at once with one line and a hint. Each command waits at most
// 3 s for the server; gomemcache takes no context, so a context is checked before each command
// only. Options.MaxConns is how many idle connections are kept for reuse (gomemcache's
// MaxIdleConns; it opens more when more commands run at once).
package memcached
