package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

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

// OpenQueue opens the list named key in the database at rawURL (see Open), with a client of its
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
	if _, err := integer(q.c.do(ctx, "LPUSH", q.key, string(body))); err != nil {
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
		case !errors.Is(err, errNil):
			return nil, q.c.wrap("brpop", q.key, err)
		case !time.Now().Before(deadline):
			return nil, fmt.Errorf("redis: pop from %q: %w (%s)", q.key, backend.ErrNoMessage, max(timeout, 0))
		}
	}
}

// popOnce is one RPOP (wait under 1 ms) on the shared connection or BRPOP of wait, to the
// millisecond, on a connection of its own; errNil when the list stayed empty.
func (q *Queue) popOnce(ctx context.Context, wait time.Duration) ([]byte, error) {
	if wait < time.Millisecond {
		return message(q.c.do(ctx, "RPOP", q.key))
	}
	p, err := q.c.lend(ctx)
	if err != nil {
		return nil, err
	}
	defer q.c.giveBack(p)
	// BRPOP's timeout is in seconds, with fractions since Redis 6.0.
	secs := strconv.FormatFloat(wait.Seconds(), 'f', 3, 64)
	r, err := p.do(wait, "BRPOP", q.key, secs)
	if err == nil && r.kind == '*' && r.n != 2 {
		return nil, fmt.Errorf("BRPOP answered %d values, want the key and a message", r.n)
	}
	return message(r, err)
}

// message is the message of an RPOP or BRPOP reply; errNil when there was none.
func message(r reply, err error) ([]byte, error) {
	switch {
	case err != nil:
		return nil, err
	case r.kind == 0:
		return nil, errNil
	case r.kind != '$' && r.kind != '*':
		return nil, unexpected(r)
	}
	return r.bulk, nil
}

// Len returns the number of messages in the list (LLEN).
func (q *Queue) Len(ctx context.Context) (int64, error) {
	n, err := integer(q.c.do(ctx, "LLEN", q.key))
	if err != nil {
		return 0, q.c.wrap("llen", q.key, err)
	}
	return n, nil
}

// Received returns how many messages Pop has returned.
func (q *Queue) Received() int64 { return q.received.Load() }

// Close closes the Queue's client; the list and its messages stay in Redis.
func (q *Queue) Close() error { return q.c.Close() }
