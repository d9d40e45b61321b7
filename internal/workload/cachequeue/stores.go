package cachequeue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/service"

	// The stores' clients, registered with package open.
	_ "github.com/iobench/iobench/internal/backend/memcached"
	_ "github.com/iobench/iobench/internal/backend/redis"
	_ "github.com/iobench/iobench/internal/backend/zmq"
)

// The seed's keys: the counter of the cache routes, the list of the queue routes.
const (
	CounterKey = "visits"
	ListKey    = "queue"
)

// Routes are the routes every impl serves, in the seed's order.
var Routes = []string{"/cache/fake", "/cache/memcached", "/cache/redis", "/cache/predis",
	"/queue/fake", "/queue/zmq", "/queue/redis", "/queue/predis"}

// Addrs are where a run's stores are: Redis (without a database), Memcached and the ZeroMQ
// endpoint (ipc://PATH or tcp://HOST:PORT).
type Addrs struct {
	Redis, Memcached, ZMQ string
	services              []*service.Instance // Redis's and Memcached's, for their cost (see used)
}

// store is what a route changes and how iobench reads it: a counter, a list, or ZeroMQ
// messages to drain; nil for the fake routes.
type store interface {
	// before reads the store when the impl is ready; after once the load has drained.
	before(ctx context.Context) error
	after(ctx context.Context) (int64, error) // the change since before
	describe() string
	close()
}

// storeOf returns the store route changes, opened. A fake route changes nothing: its store is
// those of its real siblings, which must not move (ZeroMQ aside, which cannot be read without
// taking the messages).
func storeOf(ctx context.Context, route string, a Addrs) (store, error) {
	switch route {
	case "/cache/fake":
		return untouched(ctx, a, "/cache/redis", "/cache/predis", "/cache/memcached")
	case "/queue/fake":
		return untouched(ctx, a, "/queue/redis")
	case "/cache/redis":
		return openCounter(ctx, a.Redis+"/1", "Redis DB 1")
	case "/cache/predis":
		return openCounter(ctx, a.Redis+"/0", "Redis DB 0")
	case "/cache/memcached":
		return openCounter(ctx, "memcached://"+a.Memcached, "Memcached")
	case "/queue/redis", "/queue/predis":
		q, err := open.WorkQueue(ctx, a.Redis+"/1", open.QueueName(ListKey))
		if err != nil {
			return nil, err
		}
		return &list{q: q}, nil
	case "/queue/zmq":
		return &zmqDrain{endpoint: "zmq+" + a.ZMQ}, nil
	}
	return nil, fmt.Errorf("cachequeue: no route %s; use one of %s", route, strings.Join(Routes, ", "))
}

// group watches several stores at once: a fake route's siblings, whose changes must all be 0.
type group []store

func untouched(ctx context.Context, a Addrs, routes ...string) (store, error) {
	var out group
	for _, r := range routes {
		s, err := storeOf(ctx, r, a)
		if err != nil {
			out.close()
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (ss group) before(ctx context.Context) error {
	for _, s := range ss {
		if err := s.before(ctx); err != nil {
			return err
		}
	}
	return nil
}

// after returns the sum of the changes' sizes: 0 only when nothing moved.
func (ss group) after(ctx context.Context) (int64, error) {
	var sum int64
	for _, s := range ss {
		n, err := s.after(ctx)
		if err != nil {
			return sum, err
		}
		sum += max(n, -n)
	}
	return sum, nil
}

func (ss group) describe() string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.describe())
	}
	return strings.Join(parts, ", ")
}

func (ss group) close() {
	for _, s := range ss {
		s.close()
	}
}

// counter is the "visits" counter of a cache route.
type counter struct {
	kv    backend.KV
	where string
	base  int64
}

func openCounter(ctx context.Context, url, where string) (*counter, error) {
	kv, err := open.KV(ctx, url)
	if err != nil {
		return nil, err
	}
	return &counter{kv: kv, where: where}, nil
}

// before makes sure the counter exists (Memcached's increment with an initial value creates a
// missing key at 0 without counting the request, as the seed's did), then reads it.
func (c *counter) before(ctx context.Context) error {
	base, err := c.kv.Incr(ctx, CounterKey)
	c.base = base
	return err
}

func (c *counter) after(ctx context.Context) (int64, error) {
	n, _, err := c.kv.Get(ctx, CounterKey)
	return n - c.base, err
}

func (c *counter) describe() string { return fmt.Sprintf("the counter %q in %s", CounterKey, c.where) }
func (c *counter) close()           { c.kv.Close() }

// list is the Redis list "queue" of a queue route: its length before and after.
type list struct {
	q    backend.WorkQueue
	base int64
}

func (l *list) before(ctx context.Context) (err error) {
	l.base, err = l.q.Len(ctx)
	return err
}

func (l *list) after(ctx context.Context) (int64, error) {
	n, err := l.q.Len(ctx)
	return n - l.base, err
}

func (l *list) describe() string { return fmt.Sprintf("the list %q in Redis DB 1", ListKey) }
func (l *list) close()           { l.q.Close() }

// zmqDrain counts the ZeroMQ route's messages at the end: with no consumer they wait in the
// app's PUSH sockets, so iobench binds a PULL socket on the endpoint and takes them until none
// has come for a second.
type zmqDrain struct {
	endpoint string
}

func (z *zmqDrain) before(context.Context) error { return nil }

func (z *zmqDrain) after(ctx context.Context) (int64, error) {
	q, err := open.WorkQueue(ctx, z.endpoint)
	if err != nil {
		return 0, err
	}
	defer q.Close()
	wait := 5 * time.Second // the app's sockets reconnect to the new PULL socket first
	for {
		_, err := q.Pop(ctx, wait)
		if errors.Is(err, backend.ErrNoMessage) {
			return q.Received(), nil
		}
		if err != nil {
			return q.Received(), err
		}
		wait = time.Second
	}
}

func (z *zmqDrain) describe() string {
	return "the ZeroMQ messages drained from " + strings.TrimPrefix(z.endpoint, "zmq+")
}
func (z *zmqDrain) close() {}
