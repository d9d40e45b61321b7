// Package relay is iobench's TCP relay (`iobench serve proxy`): it sits between a system under
// test and one of its services and adds a chosen latency L to every round trip, which the system
// does not see.
//
// Each chunk flowing downstream (service -> system) is written L after it was read, plus or minus
// a uniform jitter, in the order it came, by a writer of its own per connection that sleeps with
// nanosleep on a thread whose timer slack is 1 ns (the Go runtime's timers wake up to a
// millisecond late); a chunk due at once (L = 0) with none before it waiting is written by its
// reader. Chunks flowing upstream pass at once, so a pipelined stream stays pipelined.
//
// A turn is one change of direction from upstream to downstream on a connection: statements sent
// in one write, or in several before any answer came, make one turn. For the first chunk of each
// turn, either way, the relay adds up how long it held it, from the read that took it to the write
// that passed it on: Stats.Added / Stats.Turns is the latency it added per round trip.
package relay
