// Package gobus is the Go consumer under test of the bus workload (seed 1), go-bus in impls/go/bus,
// compiled into iobench and run as `iobench serve bus` (ServeCommand). It speaks the protocol of
// package busproto and knows nothing of the driver (package bus) that starts and counts it.
//
// For each command: BEGIN; INSERT ... ON CONFLICT (id) DO NOTHING (a redelivered command never
// makes a second row); publish the event inside the transaction, as the seed did; COMMIT; report;
// ack. For each event: report; ack. BEGIN goes out with the INSERT in one write (the postgres
// backend pipelines a transaction's first statement). A command may also begin in the round
// trip of another's COMMIT, on that one's connection, when the database can chain transactions
// (backend.Chainer: PostgreSQL): a handler's transaction, from its BEGIN until its event is out,
// is open on the session's relay, and a handler that takes a command meanwhile joins the oldest
// open transaction rather than sending BEGIN and its INSERT alone; the first handler then sends
// COMMIT, BEGIN and the joiner's INSERT in one write and hands the transaction over (about half
// the commands at Concurrency 80 and Prefetch 100, a PostgreSQL round trip saved for each). A
// command already waiting when a COMMIT is due (with a prefetch well above the concurrency) is
// chained the same way by the handler itself. Still one transaction per command, each event
// published after its INSERT and before its COMMIT, each ack after it. Statements run on a
// context that never ends (pgx watches an ending one with an AfterFunc per round trip); a
// handler in a round trip when its session fails finishes it, then fails. Transactions waiting
// for a COMMIT to begin in are not open yet, so fewer than Concurrency overlap at a time.
// Reports and acks go out in batches, never ahead of what they stand for: a handler hands its
// handled message to the session's settler, and the first handler to find no batch in progress
// yields once (runtime.Gosched: handlers ready to run finish and join), writes the lines of every
// message handed over so far in one write(2), then acks those messages: the acked run at the head
// of the channel's unacked deliveries as one multiple ack, while up to Prefetch - Concurrency acks
// beyond it may wait to join a later one (so that held acks and busy handlers together stay within
// the prefetch).
// Sync mode is one goroutine, one database connection and prefetch 1 (the seed's messenger polled
// with basic.get: one round trip per message). Async mode runs Concurrency goroutines in the one
// process, with a pool of as many database connections and Prefetch unacked deliveries (at least
// Concurrency, so no handler waits for the broker), like service-bus's 80 tasks on amphp; `iobench
// serve bus` runs them on one OS thread at a time (--threads 1, GOMAXPROCS), as amphp's one loop,
// with a timer slack of 1 ms (--timer-slack, package timerslack) so that the runtime's sysmon
// thread neither wakes every few tens of microseconds nor hands that one thread's work to another
// during short socket writes, and collects garbage at GOGC 400 (--gogc): its heap is a few MiB.
// Events go out through one publisher shared by the goroutines (one AMQP channel, as service-bus
// had), which sends the events of the handlers that publish at the same time in one write, each
// handler going on to its COMMIT only once its event is written; or in the durable profile one per
// goroutine, so that confirms are awaited in parallel. After
// losing the broker or the database the consumer reconnects with back-off; what was unacked is
// redelivered and handled again.
package gobus
