// Package bus is the bus workload, seed 1 (symfony/messenger vs service-bus): a command bus on a
// broker (RabbitMQ or NATS JetStream) and a database (PostgreSQL or SQLite), consumed by a sync or
// an async consumer, with every command and event accounted for.
//
// # The run (Run)
//
// Run empties the customers table (creating it with the seed's schema if missing, refusing one of
// another shape), checks that PostgreSQL's max_connections leaves room for the consumer's pool
// (and records it), deletes and redeclares the queues and the consumer's exchange, and fills N
// commands from one publisher, one after another, as the seed did. Only then does it start the consumer, a child process (`iobench
// serve bus`, or any command that speaks the report stream below), and observe every second until
// every command and event has been seen and the queues are drained. It then verifies: one row per
// command, no duplicate ids, every event handled. Errors wrap ErrBadInput (fix the input; nothing
// was measured), ErrVerify or ErrSUT (a record is returned too). Pair runs a sync and an async
// consumer on the same services; StartServices finds or starts them.
//
// The seed's three figures come out per phase: fill (commands the broker holds, read from its
// queue depth, so a client-side socket write is never counted as throughput), command processing
// and event ACK, each as the mean over the phase (first to last message, from the consumer's own
// timestamps) and the peak full second. The series has one point per second with the rates of the
// three and the queue depth. End-to-end latency is command sent (the fill's clock) to its event
// handled (the consumer's clock, same machine) in an HDR histogram, once per event.
//
// # Topology and profiles
//
// Each consumer declares its topology in its manifest (TopologyOf): the command queue, a named
// exchange with its type and routing key (or none: the default exchange), the durable profile's
// event queue, and the brokers and databases it speaks. The run deletes and redeclares the
// queues, deletes and redeclares a named exchange durable (bindExchange, over AMQP of its own: the
// Broker interface has no exchanges) and binds the command queue to it, and fills through it:
// messenger's fanout "messages", service-bus's direct "demo" with key "demo". The built-in
// consumer uses the default exchange and iobench.bus.commands, and --sut-cmd gets the same. The
// seed profile keeps what the seed did: transient messages, no publisher confirms, events
// published by the consumer the commands' way, to the tail of the same queue, so the event phase
// follows the command phase. The durable profile uses persistent messages, publisher confirms and
// a separate durable event queue (iobench.bus.events, or the manifest's second queue, reached
// through the default exchange), consumed at the same time as the commands. A consumer that
// speaks AMQP only is refused a NATS broker with what to install.
//
// Bodies are JSON: {"type":"command","id":UUID,"name":"name_N","email":"name@qwerty.root","seq":N,
// "sent_ns":T} and {"type":"event","id":UUID,"seq":N,"sent_ns":T}; "type" tells them apart on a
// shared queue, seq and sent_ns are what the accounting needs.
//
// # The consumer (Consume)
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
//
// # The report stream, and why
//
// In the seed profile the consumer itself acks the events, so only it knows when each was handled.
// It says so on stdout, one line per message, each line whole in one write(2) before the ack
// (a write may carry several lines):
//
//	ready                 once consuming
//	c SEQ UNIX_NS R       command SEQ committed (R = 1 when the broker flagged a redelivery)
//	e SEQ UNIX_NS R       event SEQ handled
//	f SEQ UNIX_NS R       command SEQ's handler failed; the consumer rejects it (written before)
//	x                     a message that was neither, acked and dropped
//
// A failed command is error class "handler": seed 1's messenger, whose plain INSERT meets the
// row a redelivered command committed before a crash (finding redelivered-duplicate-key). A run
// whose only failures are findings its variant expects is "seed flaw reproduced" (FlawReproduced).
//
// Lines are tiny and need no database, broker or library, so a PHP, Python or Node consumer can
// speak it too; pipe writes this short are atomic, so handlers may share stdout without a lock.
// Because the line precedes the ack, a consumer killed with SIGKILL can only make the load side
// see a message twice (it was redelivered), never miss one it acked: at-least-once accounting.
// The load side keeps one counter byte and one send time per sequence number (9 bytes per
// command), so duplicates and misses are exact, and the tally survives any number of consumer
// restarts. A per-second aggregate would have been smaller but could neither find duplicates nor
// survive a kill; a table of handled events would have added database load to what is measured.
//
// # When a run ends
//
// When every command and event has been seen once, the run waits until the queues are empty, so
// that duplicates still queued are counted too. If nothing is handled for 3 s (35 s on NATS,
// whose AckWait of 30 s delays redelivery) while nothing is ready, what is missing is lost and the
// run ends; if nothing is handled for 60 s with messages ready, the consumer is stalled (ErrSUT).
// Timeout bounds everything. The consumer is started and stopped by the one runner, package sut:
// in its own process group with a parent-death signal, ready when its report stream (which the
// runner hands to the tally) says "ready", and stopped on every path (SIGTERM, then SIGKILL of
// its whole process tree after 10 s).
//
// # Faults
//
// kill-sut@P% SIGKILLs the consumer's process group once P% of the commands have been handled and
// starts a new one. restart-broker@P% (durable profile only: transient messages do not survive a
// restart by design) restarts a broker iobench started; an impl's variant runs it only if its
// manifest lists it in restart_broker (it reconnects and consumes again, docs/IMPLS.md), else
// Check refuses it naming those that do. Neither may lose a command or store one twice; events
// handled twice are counted as duplicates. In the seed profile a kill can also lose
// events: they are transient and unconfirmed, and a socket closed by SIGKILL with unread data is
// reset, dropping what the broker had not read yet. The run reports them as lost (ErrVerify) and
// says why: that is the seed topology's at-most-once publishing, made visible.
//
// # Costs
//
// The record has the CPU seconds, peak RSS and busiest threads of iobench (procstat.SelfMeter:
// getrusage and /proc/self/task; with embedded NATS inside), the consumers (their whole process
// trees as the runner measures them with procstat.Meter: CPU from each one's "ready", summed over
// restarts, and the highest sampled memory, Pss, of any one of them; ru_maxrss cannot serve, since
// for a vfork+exec'd child it starts at the parent's RSS) and the broker's and database's process
// trees (procstat.Set, sampled every second: a restarted broker counts from its start, backends
// that ended count through the postmaster that reaped them, and memory is Pss, so PostgreSQL's
// shared buffers count once rather than once per backend).
package bus
