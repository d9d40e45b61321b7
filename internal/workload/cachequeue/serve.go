package cachequeue

import (
	"context"
	"errors"
	"net"
	"strconv"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/rawhttp"
)

// Service is the cachequeue workload's Go impl (`iobench serve cachequeue`, impls/go/cachequeue):
// the seed's routes on the backend layer's KV and WorkQueue, with clients opened once and
// shared by every request (the seed's PHP rebuilt a client per request over persistent
// handles), served by rawhttp. Workers bounds how many requests are handled at once: 0 for
// every connection's (async), N for a pool of N like PHP-FPM's (sync). The Predis routes exist
// only in PHP: 404.
type Service struct {
	Addrs   Addrs
	Workers int

	redisKV   backend.KV
	memcached backend.KV
	list      backend.WorkQueue
	zmq       backend.WorkQueue
	routes    map[string]route
	slots     chan struct{}
}

// route does a route's work and appends its body to body.
type route func(ctx context.Context, body []byte) ([]byte, error)

// Open connects to the stores the routes need.
func (s *Service) Open(ctx context.Context) error {
	var err error
	if s.redisKV, err = open.KV(ctx, s.Addrs.Redis+"/1"); err != nil {
		return err
	}
	if s.memcached, err = open.KV(ctx, "memcached://"+s.Addrs.Memcached); err != nil {
		return err
	}
	if s.list, err = open.WorkQueue(ctx, s.Addrs.Redis+"/1", open.QueueName(ListKey)); err != nil {
		return err
	}
	if s.zmq, err = open.WorkQueue(ctx, "zmq+"+s.Addrs.ZMQ); err != nil {
		return err
	}
	s.init()
	return nil
}

// init sets up the routes on the clients, and the worker slots.
func (s *Service) init() {
	if s.Workers > 0 {
		s.slots = make(chan struct{}, s.Workers)
	}
	s.routes = map[string]route{
		"/cache/fake":      func(_ context.Context, b []byte) ([]byte, error) { return append(b, "0\n"...), nil },
		"/cache/redis":     incr(s.redisKV),
		"/cache/memcached": incr(s.memcached),
		"/queue/fake":      func(_ context.Context, b []byte) ([]byte, error) { return b, nil },
		"/queue/redis":     push(s.list),
		"/queue/zmq":       push(s.zmq),
	}
}

// Close closes the clients.
func (s *Service) Close() error {
	var errs []error
	for _, c := range []interface{ Close() error }{s.redisKV, s.memcached, s.list, s.zmq} {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Serve answers the routes on ln until ctx ends (see rawhttp.Serve).
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	return rawhttp.Serve(ctx, ln, s.answer)
}

// incr increments the seed's counter in kv and answers its value.
func incr(kv backend.KV) route {
	return func(ctx context.Context, b []byte) ([]byte, error) {
		n, err := kv.Incr(ctx, CounterKey)
		return append(strconv.AppendInt(b, n, 10), '\n'), err
	}
}

// visit is what the queue routes push.
var visit = []byte("visit")

// push pushes the seed's message to q and answers nothing.
func push(q backend.WorkQueue) route {
	return func(ctx context.Context, b []byte) ([]byte, error) { return b, q.Push(ctx, visit) }
}

// errorHeader is what net/http's http.Error adds to its answers, which these keep.
const errorHeader = "X-Content-Type-Options: nosniff\r\n"

// answer is the Service's rawhttp.Handler: a GET or HEAD of a route runs it in a worker slot
// (sync) or at once (async) and answers its body, or a 500 with the error; anything else is a 404
// naming the routes.
func (s *Service) answer(ctx context.Context, req rawhttp.Request, a *rawhttp.Answer) {
	do, ok := s.routes[string(req.Path)]
	if !ok || req.Method == rawhttp.MethodOther {
		a.Status, a.Header = 404, errorHeader
		a.Body = append(append(append(a.Body, "no route "...), req.Path...), "; use /cache/{fake,memcached,redis} or /queue/{fake,zmq,redis}\n"...)
		return
	}
	if s.slots != nil {
		s.slots <- struct{}{}
		defer func() { <-s.slots }()
	}
	body, err := do(ctx, a.Body)
	if err != nil {
		a.Status, a.Header, a.Body = 500, errorHeader, append(append(a.Body[:0], err.Error()...), '\n')
		return
	}
	a.Status, a.Body = 200, body
}
