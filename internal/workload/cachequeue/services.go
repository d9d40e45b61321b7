package cachequeue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// The stores' roles: Redis and Memcached started by iobench (or given, or of 'services up').
var (
	RedisRole     = service.Role{Name: "redis", Local: "redis", Schemes: map[string]string{"redis": "redis"}}
	MemcachedRole = service.Role{Name: "memcached", Local: "memcached", Schemes: map[string]string{"memcached": "memcached"}}
)

// stores resolves the run's Redis and Memcached once per suite and makes the run's ZeroMQ
// endpoint, a socket in a directory of its own; cleanup removes the directory.
func stores(ctx context.Context, e *workload.Env, r scenario.Run) (a Addrs, cleanup func(), err error) {
	for _, s := range []struct {
		role service.Role
		dst  *string
	}{{RedisRole, &a.Redis}, {MemcachedRole, &a.Memcached}} {
		v, err := e.Share(Name+"|"+s.role.Name+"|"+r.Services[s.role.Name].URL, func() (any, func(), error) {
			inst, err := service.Resolve(ctx, s.role, workload.Choice(r.Services[s.role.Name]), service.Options{})
			if err != nil {
				return nil, nil, err
			}
			return inst, func() { _ = inst.Stop(context.Background()) }, nil
		})
		if err != nil {
			return a, nil, err
		}
		*s.dst = v.(*service.Instance).EnvValue()
		a.services = append(a.services, v.(*service.Instance))
	}
	return a.withEndpoint(func() {})
}

// withEndpoint gives a a ZeroMQ endpoint, a socket in a new directory; its cleanup removes the
// directory after stop.
func (a Addrs) withEndpoint(stop func()) (Addrs, func(), error) {
	dir, err := os.MkdirTemp("", "iobench-zmq-")
	if err != nil {
		stop()
		return a, nil, fmt.Errorf("cachequeue: a directory for the ZeroMQ endpoint: %w", err)
	}
	a.ZMQ = "ipc://" + filepath.Join(dir, "queue.sock")
	return a, func() { stop(); os.RemoveAll(dir) }, nil
}

// environ is what the impl gets to reach the stores.
func (a Addrs) environ() map[string]string {
	return map[string]string{env.RedisURL: a.Redis, env.MemcachedAddr: a.Memcached, env.ZMQEndpoint: a.ZMQ}
}

// verifyStores resolves a Redis and a Memcached for `iobench verify` (the environment's, those
// of 'iobench services up', or private ones) and a ZeroMQ endpoint; cleanup stops what it
// started.
func verifyStores(ctx context.Context) (a Addrs, cleanup func(), err error) {
	var started []*service.Instance
	cleanup = func() {
		for _, inst := range started {
			_ = inst.Stop(context.Background())
		}
	}
	for _, s := range []struct {
		role service.Role
		dst  *string
	}{{RedisRole, &a.Redis}, {MemcachedRole, &a.Memcached}} {
		inst, err := service.Resolve(ctx, s.role, service.Choice{}, service.Options{})
		if err != nil {
			cleanup()
			return a, nil, err
		}
		started = append(started, inst)
		*s.dst = inst.EnvValue()
	}
	return a.withEndpoint(cleanup)
}
