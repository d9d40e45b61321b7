package backend

import (
	"context"
	"errors"
	"time"
)

// KV is a store of named integer counters (Redis, Memcached), the cache side of a benchmark
// that counts visits. Its methods are safe for concurrent use.
type KV interface {
	// Incr adds 1 to key's counter, creating it at 0 first, and returns the new value.
	// Concurrent Incrs of one key each return a different value.
	Incr(ctx context.Context, key string) (int64, error)
	// Get returns key's counter; ok is false when the key does not exist.
	Get(ctx context.Context, key string) (n int64, ok bool, err error)
	// Del removes keys, so a benchmark starts its counters from nothing; a missing key is not
	// an error.
	Del(ctx context.Context, keys ...string) error
	Close() error
}

// ErrNoMessage is returned (wrapped) by WorkQueue.Pop when no message came within its timeout.
var ErrNoMessage = errors.New("no message within the timeout")

// WorkQueue is a queue of messages that each go to one receiver (a Redis list, ZeroMQ
// PUSH/PULL), the queue side of a benchmark. It is not a Broker's queue: no declare, no acks;
// a message popped is gone. Its methods are safe for concurrent use.
type WorkQueue interface {
	// Push appends body to the queue.
	Push(ctx context.Context, body []byte) error
	// Pop removes and returns the oldest message, waiting up to timeout for one (timeout <= 0:
	// no wait); when none comes the error wraps ErrNoMessage.
	Pop(ctx context.Context, timeout time.Duration) ([]byte, error)
	// Len returns how many messages wait in the queue. A queue that cannot tell (ZeroMQ, whose
	// messages wait in socket buffers) returns an error wrapping ErrUnsupported: count it by
	// Received instead.
	Len(ctx context.Context) (int64, error)
	// Received returns how many messages Pop has returned through this WorkQueue.
	Received() int64
	Close() error
}
