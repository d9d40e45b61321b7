package cachequeue

import (
	"context"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// storeVars are the variables in which every impl gets each store's address (the workload gives
// them all; no manifest declares them).
var storeVars = map[string]string{"redis": env.RedisURL, "memcached": env.MemcachedAddr}

// injectUses is the store a route changes, as --inject names it (its kind, or the alias store):
// a route without a store (the fake ones, ZeroMQ's) uses none.
func injectUses(route string) []inject.Use {
	kind := routeStore[route]
	if kind == "" {
		return nil
	}
	return []inject.Use{{Role: "store", Kind: kind, Var: storeVars[kind]}}
}

// startProxies puts a relay in front of the store r's inject param names and points sutEnv, the
// app's environment, at it; iobench's own reads of the store and the route's consumer go direct.
func startProxies(ctx context.Context, r scenario.Run, route string, t workload.Target, sutEnv map[string]string) (inject.Set, error) {
	specs, err := inject.FromParams(r.Params)
	if err != nil {
		return nil, err
	}
	return inject.Open(ctx, specs, injectUses(route), t.Name(), sutEnv, inject.Options{Executable: t.Inst.Executable})
}

// recordProxies adds what the relays achieved to rec, per answered request (the warm-up's
// included, as the store's count), and the injection among its parameters.
func recordProxies(rec *result.Record, set inject.Set, answered int64, r scenario.Run) {
	specs, _ := inject.FromParams(r.Params)
	set.RecordRun(rec, answered, rec.Duration.Std(), specs)
}
