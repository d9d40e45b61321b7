// Package relay is iobench's TCP relay (`iobench serve proxy`): it sits between a system under
// test and one of its services and adds a chosen latency L to every round trip, which the system
// does not see.
//
// Each chunk flowing downstream (service -> system) is written L after it arrived, plus or minus
// a uniform jitter, in the order it came, by a writer of its own per connection. Its arrival is
// the kernel's receive stamp (SO_TIMESTAMPNS), not the later return of the read; the writer
// sleeps with nanosleep on a thread whose timer slack is 1 ns (the Go runtime's timers wake up to
// a millisecond late), wakes early by the recent mean of its wake-ups' lateness (at most 50 µs)
// and spins the rest (waker), so the write leaves at the due time. A chunk due at once (L = 0) with none before
// it waiting is written by its reader. Chunks flowing upstream pass at once, so a pipelined stream
// stays pipelined.
//
// A turn is one change of direction from upstream to downstream on a connection: statements sent
// in one write, or in several before any answer came, make one turn. For the first chunk of each
// turn, either way, the relay adds up how long it held it, from its arrival at the relay's socket
// to the end of the write that passed it on: Stats.Added / Stats.Turns is the latency it added per
// round trip, the wake-ups of its own threads included.
package relay
