// Package publish is the publish workload (seed 2, normtomlins/rabbitmq-performance): P
// publishers send N messages (or for a duration) to one queue, transient or persistent, with or
// without publisher confirms, and iobench reports what the broker accepted, never what the
// client believes it sent.
//
// The broker-accepted count comes from the broker: the confirms it sent when confirms are on;
// otherwise the queue's message count (a passive queue.declare on a separate connection, read
// every second and, after the last write, every 10 ms until it stops moving), plus what the
// consumers received when there are any. The client write rate (messages written to the
// sockets) is reported apart and labelled as such; the gap between the two is the broker's
// drain time. Each run reports the sustained mean (first publish to the moment the broker had
// counted the last message), the best one-second interval, the per-second series, per-publisher
// counts, and with --consumers the end-to-end latency (HDR, from the send time carried in every
// body) and lost and duplicated messages (from the sequence number in every body). After the run
// the queue's durability and the messages' delivery mode are read back from the broker.
//
// The publishers publish through backend.Publisher (package backend/amqp): --confirm N is its
// confirm window, whose counts are the client's written and confirmed counts, and each body's
// send time is taken once a slot is free (Ready). The consumers and the checks that read the
// queue back speak amqp091 directly.
//
// Presets reproduce seed 2's Go runs (go-single, go-pool, go-ultra). RunImpl drives an external
// publisher declared in impls/ (the seed's Python variants) under the same broker-side
// counting, and Seed2 runs the whole comparison and prints it in the seed's shape.
package publish
