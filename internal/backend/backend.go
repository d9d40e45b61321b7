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

	"github.com/iobench/iobench/internal/fail"
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

// ConsumerConfig says what a Consumer reads and how many unacked messages it may hold.
type ConsumerConfig struct {
	Queue    string
	Prefetch int // at most this many delivered and not yet acked; 0 is the backend's default
	// AckBacklog lets AckAll hold back up to this many acks of deliveries that came after one
	// still unacked, so that they go out later with it as one (AMQP: a multiple ack); Close
	// sends what is held back. Held acks count against Prefetch. 0 holds none back.
	AckBacklog int
}

// Delivery is one received message. Ack or Nack must be called exactly once; both are safe to
// call from any goroutine.
type Delivery interface {
	Body() []byte
	Redelivered() bool
	Ack() error
	Nack(requeue bool) error
}

// BatchAcker is implemented by Consumers that can acknowledge several deliveries with fewer
// writes than an Ack each.
type BatchAcker interface {
	// AckBatch acknowledges ds, deliveries of this Consumer not yet settled, as an Ack of each
	// would, except that up to ConsumerConfig.AckBacklog acks may reach the broker later.
	AckBatch(ds []Delivery) error
}

// AckAll acknowledges ds, all delivered by c: as one batch where c is a BatchAcker, else one by
// one.
func AckAll(c Consumer, ds []Delivery) error {
	if b, ok := c.(BatchAcker); ok {
		return b.AckBatch(ds)
	}
	for _, d := range ds {
		if err := d.Ack(); err != nil {
			return err
		}
	}
	return nil
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

// Chainer is implemented by a Tx that can commit and begin the next transaction on the same
// connection in one round trip, the next one's first statement sent along.
type Chainer interface {
	// CommitExec commits the transaction and begins another that runs query with args, all sent
	// at once. On success the Tx stands for the new transaction. committed says whether the first
	// transaction is known to be committed, even when err is not nil; after an error the Tx is
	// ended (as by Rollback) and its new transaction, if any, rolled back.
	CommitExec(ctx context.Context, query string, args ...any) (committed bool, rows int64, err error)
}

// ConnectError is a failure to reach a service, worded for the user on one line (what failed,
// why, what to do), that still unwraps to its cause. It matches fail.ErrBadInput: a service
// that cannot be reached is for the user to fix (exit 2).
type ConnectError struct {
	Msg string
	Err error
}

// Error returns the one-line message.
func (e *ConnectError) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *ConnectError) Unwrap() error { return e.Err }

// Is reports whether target is fail.ErrBadInput, which a ConnectError is.
func (e *ConnectError) Is(target error) bool { return target == fail.ErrBadInput }
