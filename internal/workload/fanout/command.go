package fanout

import (
	"context"
	"fmt"
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

// Options are one fanout run as `iobench fanout` asks for it: ab's -c and -n, or a duration,
// closed loop or open (Rate).
type Options struct {
	Route       string
	Connections int
	Threads     int   // 0: the generator's default
	Requests    int64 // 0: for Duration
	Duration    time.Duration
	Warmup      time.Duration
	Timeout     time.Duration
	Rate        float64 // open loop, requests per second; 0: closed loop
	Delay, Work time.Duration
	Inject      []string // --inject, as inject.ParseAll reads them
	Fault       []string // --fault, as fault.ParseAll reads them
	Command     []string
	OnSecond    func(engine.Snapshot)
}

// Check reports the first problem with o as a one-line error matching fail.ErrBadInput.
func (o Options) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", fail.ErrBadInput, fmt.Sprintf(format, args...))
	}
	switch {
	case !slices.Contains(Routes, o.Route):
		return bad("--route %q: use one of %s", o.Route, strings.Join(Routes, ", "))
	case o.Requests == 0 && o.Duration <= 0:
		return bad("-d %v: use a positive duration such as 10s, or -n", o.Duration)
	case o.Delay < 0 || o.Work < 0:
		return bad("--delay %v, --work %v: use durations of 0 or more, e.g. 10ms", o.Delay, o.Work)
	}
	if _, err := fault.ParseAll(o.Fault); err != nil {
		return err
	}
	if specs, err := inject.ParseAll(o.Inject); err != nil {
		return err
	} else if _, err := inject.Resolve(specs, injectUses, "the impl"); err != nil {
		return err // the upstream is the only service of a fanout run
	}
	// The generator's own checks (connections, threads, -n with -R, timeout), before anything starts.
	hb := httpbench.Options{URL: "http://127.0.0.1:1" + o.Route, Connections: o.Connections, Threads: o.Threads,
		Requests: o.Requests, Duration: o.Duration, Rate: o.Rate, RateSet: o.Rate != 0, Warmup: o.Warmup, Timeout: o.Timeout}
	if _, err := hb.Config(); err != nil {
		return bad("%v", err)
	}
	return nil
}

// RunOne measures one fanout run of target, as a one-run suite would: the same upstream, drain,
// count and overlap checks. A run whose calls do not match returns its record and ErrCalls.
func RunOne(ctx context.Context, target workload.Target, o Options) (*result.Record, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	params := map[string]any{
		"route": o.Route, "connections": int64(o.Connections), "requests": o.Requests, "timeout": o.Timeout,
		"upstream_delay": o.Delay, "work": o.Work, "load": "closed",
	}
	if len(o.Fault) > 0 {
		params[fault.Param] = strings.Join(o.Fault, ";")
	}
	if len(o.Inject) > 0 {
		params[inject.Param] = strings.Join(o.Inject, ";")
	}
	if o.Threads > 0 {
		params["threads"] = int64(o.Threads)
	}
	if o.Rate > 0 {
		params["load"], params["rate"] = "open", o.Rate
	}
	r := scenario.Run{ID: "fanout", Workload: Name, Impl: target.Name(), Params: params, Duration: o.Duration, Warmup: o.Warmup, Repeat: 1, Repeats: 1}
	e, done := workload.Single(target, r, o.Command, o.OnSecond)
	defer done()
	return run(ctx, e, r)
}
