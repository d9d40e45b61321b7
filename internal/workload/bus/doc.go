// Package bus is the bus workload, seed 1 (symfony/messenger vs service-bus): a command bus on a
// broker (RabbitMQ or NATS JetStream) and a database (PostgreSQL or SQLite), consumed by a sync or
// an async consumer, with every command and event accounted for.
//
// # The run (Run)
//
// Run empties the customers table (creating it with the seed's schema if missing, refusing one of
// another shape), checks that PostgreSQL's max_connections leaves room for the consumer's pool
// (and records it), deletes and redeclares the queues and the consumer's exchange, and fills N
// commands from one publisher, one after another, as the seed did. Only then does it start the
// consumer, a child process (an impl's manifest's command, or any command that speaks busproto's
// report stream), and observe every second until every command and event has been seen and the
// queues are drained. It then verifies: one row per
// command, no duplicate ids, every event handled. Errors wrap ErrBadInput (fix the input; nothing
// was measured), ErrVerify or ErrSUT (a record is returned too). StartServices finds or
// starts the services.
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
// Bodies and the report stream are package busproto's, which the driver and the Go consumer
// share.
//
// # The consumer
//
// The consumer is an impl of impls/ started from its manifest (impl.Installation.Start), by
// default go-bus: `iobench serve bus`, package internal/impls/gobus, which this package does not
// import. --sut-cmd runs a command of the user's the same way (CommandTarget). Its variant's mode
// reaches it once, as IOBENCH_MODE; the run's URLs, concurrency, prefetch and profile as the other
// IOBENCH_* variables.
//
// # When a run ends
//
// When every command and event has been seen once, the run waits until the queues are empty, so
// that duplicates still queued are counted too. If nothing is handled for 3 s (35 s on NATS,
// whose AckWait of 30 s delays redelivery) while nothing is ready, what is missing is lost and the
// run ends; if nothing is handled for 60 s with messages ready, the consumer is stalled (ErrSUT).
// Timeout bounds everything. The consumer is started from its manifest (impl.Installation.Start)
// by the one runner, package sut: in its own process group with a parent-death signal, ready when
// its report stream (which the runner hands to the tally) says "ready" within its ready.timeout,
// and stopped on every path (its stop.signal, then SIGKILL of its whole process tree after its
// stop.timeout).
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
