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
// The Go publisher under test is package impls/gopublisher: its Publisher runs in iobench's
// own process for `iobench publish` without --impl (RunOne with the zero Target; --confirm N is
// its confirm window, whose counts are the client's written and confirmed counts), and its
// Serve is the go-publisher impl. The consumers and the checks that read the queue back speak
// amqp091 directly.
//
// RunImpl drives a publisher declared in impls/ (go-publisher's single, pool and ultra, the
// seed's Python variants) under the same broker-side counting; scenarios/seed2-publish.yaml runs
// seed 2's whole comparison.
package publish
