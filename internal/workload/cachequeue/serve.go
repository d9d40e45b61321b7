package cachequeue

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
)

// Service is the cachequeue workload's Go impl (`iobench serve cachequeue`, impls/go/cachequeue):
// the seed's routes on the backend layer's KV and WorkQueue, with clients opened once and
// shared by every request (the seed's PHP rebuilt a client per request over persistent
// handles). Workers bounds how many requests are handled at once: 0 for every connection's
// (async), N for a pool of N like PHP-FPM's (sync). The Predis routes exist only in PHP: 404.
type Service struct {
	Addrs   Addrs
	Workers int

	redisKV   backend.KV
	memcached backend.KV
	list      backend.WorkQueue
	zmq       backend.WorkQueue
	slots     chan struct{}
}

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
	if s.Workers > 0 {
		s.slots = make(chan struct{}, s.Workers)
	}
	return nil
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

// Handler answers the routes.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	counter := func(kv backend.KV) http.HandlerFunc {
		return s.handle(func(ctx context.Context) (string, error) {
			n, err := kv.Incr(ctx, CounterKey)
			return strconv.FormatInt(n, 10) + "\n", err
		})
	}
	push := func(q backend.WorkQueue) http.HandlerFunc {
		return s.handle(func(ctx context.Context) (string, error) { return "", q.Push(ctx, []byte("visit")) })
	}
	mux.Handle("GET /cache/fake", s.handle(func(context.Context) (string, error) { return "0\n", nil }))
	mux.Handle("GET /cache/redis", counter(s.redisKV))
	mux.Handle("GET /cache/memcached", counter(s.memcached))
	mux.Handle("GET /queue/fake", s.handle(func(context.Context) (string, error) { return "", nil }))
	mux.Handle("GET /queue/redis", push(s.list))
	mux.Handle("GET /queue/zmq", push(s.zmq))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no route "+r.URL.Path+"; use /cache/{fake,memcached,redis} or /queue/{fake,zmq,redis}", http.StatusNotFound)
	})
	return mux
}

// handle runs do in a worker slot (sync) or at once (async) and writes its body, or a 500.
func (s *Service) handle(do func(ctx context.Context) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.slots != nil {
			s.slots <- struct{}{}
			defer func() { <-s.slots }()
		}
		body, err := do(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, body)
	}
}
