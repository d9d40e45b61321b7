// Package nats implements backend.Broker for NATS JetStream with github.com/nats-io/nats.go.
//
// A "queue" is a JetStream stream named after the queue (characters outside [A-Za-z0-9_-]
// become '_') that captures exactly the subject of the queue's name, with work-queue
// retention: a message is removed once acknowledged. Durable queues are stored in files,
// others in memory. The storage is fixed when the queue is declared, so PublisherConfig's
// Persistent flag changes nothing here: JetStream persists every message its stream stores.
//
// Every Consumer of a queue shares one durable pull consumer named "iobench" (a work-queue
// stream allows only one consumer per subject). Its MaxAckPending is the sum of the Prefetch of
// the Consumers this Broker has open on the queue; processes sharing a queue overwrite each
// other's MaxAckPending, the last one to open a Consumer setting it. Each Consumer pulls for
// exactly as many messages as it has free slots (Prefetch minus deliveries not yet settled), one
// pull request at a time, so it never holds more than Prefetch. Ack is an explicit ack, Nack
// with requeue a NAK (redelivered at once), Nack without requeue a TERM (the message is
// dropped). Redelivered is true when JetStream's delivery count is above one. Close NAKs the
// deliveries not yet settled, as an AMQP broker requeues a closed channel's unacked messages.
//
// Depth is the durable consumer's NumPending (messages not yet delivered), or the stream's
// message count before any consumer exists. A message NAKed and waiting for redelivery is not
// counted.
//
// JetStream acknowledges every publish. A Publisher with Confirm and no Window waits for that
// PubAck in Publish; with a Window of N it publishes asynchronously, at most N awaiting their
// PubAck, and counts each PubAck as an ack and each refusal or 30 s without a PubAck as a nack.
// Without Confirm it publishes asynchronously and Close waits for the outstanding PubAcks and
// returns the first failure. A ContentType travels as a Content-Type header.
//
// The client reconnects on its own after a broker restart and a Consumer waits for it (and for
// JetStream to answer again, up to 30 s); it ends (Deliveries closes, Err says why) when the
// connection is closed for good or its queue is deleted.
package nats
