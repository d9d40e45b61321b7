// Package backend defines the small, capability-shaped interfaces that workloads use to talk to
// backing services: a Broker that publishes and consumes, a SQL database, a KV store of counters
// and a WorkQueue. Each product lives in its own subpackage (amqp, nats, postgres, sqlite, redis,
// memcached, zmq), registers its URL schemes in the registry of each capability it offers
// (registry.go), and is opened by URL through package open. Every implementation passes the
// shared conformance suite of its capabilities in backend/conformance.
package backend

import (
	"context"
	"errors"
	"time"
)

// ErrUnsupported is returned for an option a backend cannot honour (e.g. confirms on a broker
// without them); callers branch on it to give the user a clear message.
var ErrUnsupported = errors.New("not supported by this backend")

// ErrClosed is returned (wrapped) by the methods of a Publisher, KV or WorkQueue that was
// closed.
var ErrClosed = errors.New("closed")

// ErrQueueNotFound is returned (wrapped) by Broker.Depth and Broker.Consumer for a queue that
// does not exist.
var ErrQueueNotFound = errors.New("queue not found")

// Queue describes a queue to declare. Declaring is idempotent.
type Queue struct {
	Name    string
	Durable bool
}

// PublisherConfig says where and how a Publisher sends.
type PublisherConfig struct {
	Queue       string // destination queue (AMQP: default exchange routed by name, or Exchange+Key)
	Exchange    string // optional AMQP exchange; empty means the default exchange
	RoutingKey  string // optional; defaults to Queue
	Persistent  bool   // delivery mode 2 / file storage
	ContentType string // optional content type (AMQP property, NATS Content-Type header)
	// Confirm makes the broker confirm each publish (AMQP publisher confirms, JetStream
	// PubAcks). Without a Window, Publish returns only once its message is confirmed.
	Confirm bool
	// Window, with Confirm, lets up to Window publishes await their confirm at once: Publish
	// returns once its message is written, waiting first while Window messages are
	// unconfirmed; Counts and Flush tell what the broker made of them. 0 means no window.
	Window int
}

// Publisher sends messages. Publish, Ready and Flush are not safe for concurrent use (open one
// Publisher per goroutine); Counts may be called from any goroutine.
type Publisher interface {
	// Publish sends body. With Confirm and no Window it returns once the broker confirmed it
	// (a nack is an error); otherwise once it is written.
	Publish(ctx context.Context, body []byte) error
	// Ready returns once a Publish would not wait for a free confirm slot (at once without a
	// Window), so the caller can take its next message's send time after the wait. It fails
	// when ctx ends first, the Publisher is closed or the confirms can no longer come.
	Ready(ctx context.Context) error
	// Flush waits until the broker has confirmed or nacked every message published so far
	// (with Confirm; without, it returns at once where the backend has nothing in flight). It
	// fails when ctx ends first or the confirms can no longer come (channel or connection lost).
	Flush(ctx context.Context) error
	// Counts returns what this Publisher has written and, with Confirm, what the broker
	// confirmed so far: a consistent snapshot, Acked+Nacked <= Written and, with a Window,
	// Written-Acked-Nacked <= Window at every moment. Messages whose confirm can no longer come
	// (the connection was lost) stay unsettled: Written-Acked-Nacked.
	Counts() PublishCounts
	Close() error
}

// PublishCounts is what a Publisher has sent and what the broker made of it.
type PublishCounts struct {
	Written     int64     // messages written (a write that fails is taken back)
	Acked       int64     // confirmed by the broker (Confirm only)
	Nacked      int64     // refused by the broker; NATS: also a PubAck that did not come in time (Confirm only)
	LastConfirm time.Time // when the latest ack or nack arrived; zero before the first
}

// ConsumerConfig says what a Consumer reads and how many unacked messages it may hold.
type ConsumerConfig struct {
	Queue    string
	Prefetch int // at most this many delivered and not yet acked; 0 is the backend's default
}

// Delivery is one received message. Ack or Nack must be called exactly once; both are safe to
// call from any goroutine.
type Delivery interface {
	Body() []byte
	Redelivered() bool
	Ack() error
	Nack(requeue bool) error
}

// Consumer receives messages until closed or the context ends; the channel then closes.
// When it closes for any other reason (connection lost, broker restart, queue deleted), the
// Consumer also implements ErrReporter and ConsumerErr returns the cause.
type Consumer interface {
	Deliveries() <-chan Delivery
	Close() error
}

// ErrReporter is implemented by Consumers that can say why their Deliveries channel closed.
type ErrReporter interface {
	// Err returns nil while the Consumer runs and after a Close or context end, and the cause
	// once the Deliveries channel has closed for any other reason.
	Err() error
}

// ConsumerErr returns why c's Deliveries channel closed, or nil if it closed because of Close or
// the context, is still open, or c cannot tell. Call it after the channel has closed.
func ConsumerErr(c Consumer) error {
	if r, ok := c.(ErrReporter); ok {
		return r.Err()
	}
	return nil
}

// Broker is a message broker connection. Its methods are safe for concurrent use.
type Broker interface {
	DeclareQueue(ctx context.Context, q Queue) error
	// DeleteQueue deletes a queue and its messages; deleting a missing queue is not an error.
	DeleteQueue(ctx context.Context, name string) error
	// Depth returns the number of messages ready in a queue (published, not yet delivered to a
	// consumer), as the broker counts them; for a missing queue the error wraps ErrQueueNotFound.
	Depth(ctx context.Context, name string) (int64, error)
	Publisher(ctx context.Context, cfg PublisherConfig) (Publisher, error)
	Consumer(ctx context.Context, cfg ConsumerConfig) (Consumer, error)
	Close() error
}

// SQL is a database connection pool. Queries use ? placeholders; backends rewrite them as needed.
type SQL interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryInt runs a query that returns one integer (e.g. a count).
	QueryInt(ctx context.Context, query string, args ...any) (int64, error)
	Begin(ctx context.Context) (Tx, error)
	Close() error
}

// Tx is a transaction (READ COMMITTED where the database has levels). It is not safe for
// concurrent use.
type Tx interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Commit(ctx context.Context) error
	// Rollback aborts the transaction. After Commit it does nothing and returns nil, so
	// `defer tx.Rollback(ctx)` is always safe.
	Rollback(ctx context.Context) error
}

// ConnectError is a failure to reach a service, worded for the user on one line (what failed,
// why, what to do), that still unwraps to its cause.
type ConnectError struct {
	Msg string
	Err error
}

// Error returns the one-line message.
func (e *ConnectError) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *ConnectError) Unwrap() error { return e.Err }
