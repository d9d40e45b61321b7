package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/iobench/iobench/internal/backend"
)

// popSlice bounds one BRPOP of a Pop: short enough that Pop sees its context end soon, and far
// below the client's read timeout.
const popSlice = 250 * time.Millisecond

// Queue is a Redis list used as a work queue: Push is LPUSH, Pop is BRPOP, Len is LLEN. It
// implements backend.WorkQueue and is safe for concurrent use.
type Queue struct {
	c        *Client
	key      string
	received atomic.Int64
}

var _ backend.WorkQueue = (*Queue)(nil)

// OpenQueue opens the list named key in the database at rawURL (see Open), with a pool of its
// own that Close closes.
func OpenQueue(ctx context.Context, rawURL, key string, opts Options) (*Queue, error) {
	if key == "" {
		return nil, errors.New("redis: a queue needs a name, the key of its list; give one (the seed's is \"queue\")")
	}
	c, err := Open(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	return &Queue{c: c, key: key}, nil
}

// Push appends body at the head of the list (LPUSH).
func (q *Queue) Push(ctx context.Context, body []byte) error {
	if err := ctx.Err(); err != nil {
		return q.c.wrap("lpush", q.key, err)
	}
	if err := q.c.rdb.LPush(ctx, q.key, body).Err(); err != nil {
		return q.c.wrap("lpush", q.key, err)
	}
	return nil
}

// Pop removes and returns the message at the tail of the list, the oldest, waiting up to
// timeout (BRPOP, in slices of at most popSlice; RPOP when timeout <= 0).
func (q *Queue) Pop(ctx context.Context, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		if err := ctx.Err(); err != nil {
			return nil, q.c.wrap("brpop", q.key, err)
		}
		body, err := q.popOnce(ctx, min(time.Until(deadline), popSlice))
		switch {
		case err == nil:
			q.received.Add(1)
			return body, nil
		case !errors.Is(err, goredis.Nil):
			return nil, q.c.wrap("brpop", q.key, err)
		case !time.Now().Before(deadline):
			return nil, fmt.Errorf("redis: pop from %q: %w (%s)", q.key, backend.ErrNoMessage, max(timeout, 0))
		}
	}
}

// popOnce is one RPOP (wait under 1 ms) or BRPOP of wait, to the millisecond; goredis.Nil when
// the list stayed empty.
func (q *Queue) popOnce(ctx context.Context, wait time.Duration) ([]byte, error) {
	if wait < time.Millisecond {
		return q.c.rdb.RPop(ctx, q.key).Bytes()
	}
	// BRPOP's timeout in seconds with fractions; go-redis's BRPop rounds it to whole seconds.
	secs := strconv.FormatFloat(wait.Seconds(), 'f', 3, 64)
	kv, err := q.c.rdb.Do(ctx, "brpop", q.key, secs).StringSlice()
	if err != nil {
		return nil, err
	}
	if len(kv) != 2 {
		return nil, fmt.Errorf("BRPOP answered %d values, want the key and a message", len(kv))
	}
	return []byte(kv[1]), nil
}

// Len returns the number of messages in the list (LLEN).
func (q *Queue) Len(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, q.c.wrap("llen", q.key, err)
	}
	n, err := q.c.rdb.LLen(ctx, q.key).Result()
	if err != nil {
		return 0, q.c.wrap("llen", q.key, err)
	}
	return n, nil
}

// Received returns how many messages Pop has returned.
func (q *Queue) Received() int64 { return q.received.Load() }

// Close closes the Queue's pool; the list and its messages stay in Redis.
func (q *Queue) Close() error { return q.c.Close() }
