package cachequeue

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// Options are one cachequeue run as `iobench cachequeue` asks for it: wrk's -c, -t and -d, a
// closed loop or an open one (Rate), with or without the route's consumer.
type Options struct {
	Route       string
	Connections int
	Threads     int // 0: the generator's default
	Duration    time.Duration
	Warmup      time.Duration
	Timeout     time.Duration
	Rate        float64  // open loop, requests per second; 0: closed loop
	Consumers   bool     // run the impl's consumer of the route beside it, if it declares one
	Engine      string   // the generator's engine (engine.Config.Engine); "" for the default
	Inject      []string // --inject, as inject.ParseAll reads them
	Fault       []string // --fault, as fault.ParseAll reads them
	Command     []string
	OnSecond    func(engine.Snapshot)
}

// Check reports the first problem with o as a one-line error matching fail.ErrBadInput.
func (o Options) Check() error {
	if !slices.Contains(Routes, o.Route) {
		return fail.BadInput("--route %q: use one of %s", o.Route, strings.Join(Routes, ", "))
	}
	hb := httpbench.Options{URL: "http://127.0.0.1:1" + o.Route, Connections: o.Connections, Threads: o.Threads,
		Duration: o.Duration, Rate: o.Rate, RateSet: o.Rate != 0, Warmup: o.Warmup, Timeout: o.Timeout}
	if _, err := hb.Config(); err != nil {
		return fail.BadInput("%v", err)
	}
	specs, err := inject.ParseAll(o.Inject)
	if err == nil {
		_, err = inject.Resolve(specs, injectUses(o.Route), "the impl") // the route's store is the only one it delays
	}
	if err == nil {
		_, err = fault.ParseAll(o.Fault)
	}
	return err
}

// RunOne measures one route of target as a one-run suite would: the stores (the environment's,
// those of 'iobench services up', or started for the run), the load, the count in the store.
func RunOne(ctx context.Context, target workload.Target, o Options) (*result.Record, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if target.Inst != nil {
		// An impl serves the routes its manifest declares: the Predis routes are PHP's only.
		if routes := target.Inst.Manifest.Routes(Name); len(routes) > 0 && !slices.Contains(routes, o.Route) {
			return nil, fail.BadInput("--route %q: %s does not serve it; its routes are %s", o.Route, target.Inst.Manifest.Name, strings.Join(routes, ", "))
		}
	}
	params := map[string]any{"route": o.Route, "connections": int64(o.Connections), "timeout": o.Timeout, "load": "closed",
		"consumers": o.Consumers}
	if o.Threads > 0 {
		params["threads"] = int64(o.Threads)
	}
	if o.Engine != "" {
		params["engine"] = o.Engine
	}
	if len(o.Fault) > 0 {
		params[fault.Param] = strings.Join(o.Fault, ";")
	}
	if len(o.Inject) > 0 {
		params[inject.Param] = strings.Join(o.Inject, ";")
	}
	if o.Rate > 0 {
		params["load"], params["rate"] = "open", o.Rate
	}
	r := scenario.Run{ID: Name, Workload: Name, Impl: target.Name(), Params: params, Duration: o.Duration, Warmup: o.Warmup,
		Repeat: 1, Repeats: 1, Services: map[string]scenario.Service{}}
	e, done := workload.Single(target, r, o.Command, o.OnSecond)
	defer done()
	return run(ctx, e, r)
}
