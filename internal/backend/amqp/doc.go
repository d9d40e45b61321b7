// Package amqp implements backend.Broker for AMQP 0-9-1 brokers (RabbitMQ) with
// github.com/rabbitmq/amqp091-go.
//
// A Broker holds one AMQP connection. Declaring, deleting and counting queues share one
// administrative channel; every Publisher and every Consumer gets a channel of its own, so a
// slow consumer never blocks a publisher and a channel error stays local.
//
// Queues are classic queues declared without arguments (the broker default), so SUTs that
// declare the same queue without arguments agree with iobench. Depth is the "messages ready"
// count of a passive queue.declare: published, not yet delivered to any consumer.
//
// A Publisher with Confirm puts its channel in confirm mode and counts the broker's acks and
// nacks as they come (basic.ack with multiple set counts every message it covers). Without a
// Window, Publish returns only after the broker acknowledged its message (a nack is an error);
// with a Window of N, Publish returns once the message is written and waits first while N are
// unconfirmed, and Flush waits for the rest. Persistent sets delivery mode 2. Without confirms,
// PublishBatch writes its messages in one write(2): the connection's socket is corked meanwhile,
// so that whatever else is written on it then (acks, other channels) goes out with them.
//
// A Consumer sets basic.qos to its Prefetch (0: unlimited) and acknowledges manually. AckBatch
// (backend.AckAll) acks the run of acked deliveries at the head of those not yet acked with one
// multiple ack, the others one by one, or, up to AckBacklog of them, later with the head's; all
// in one write (the socket corked), and Close sends those held back. When the connection or
// channel fails (broker restart, queue deleted), its Deliveries channel closes and Err reports
// the cause; Close and context cancellation close it with a nil Err. Deliveries still unacked
// when the Consumer closes are requeued by the broker.
//
// amqp091 calls cannot be cancelled: a context is checked before an administrative call and
// bounds Open's connect and handshake, a Publish's wait for its confirm, and a Consumer's life.
//
// Connection failures are reported in one line with the password masked and a hint, e.g.
//
//	amqp: cannot connect to amqp://guest:xxxxx@127.0.0.1:5672/: connection refused; start one
//	with 'iobench services up rabbitmq' or pass --amqp-url
package amqp
