package cachequeue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// ErrCount is the error of a run whose store did not count what iobench saw.
var ErrCount = errors.New("cachequeue: the store's count does not match the responses")

// run measures one route: the stores, the impl with their addresses, the store read once the
// impl is ready (then the route's consumer started, if the run asks for one), load with a drain
// at the end, then (the consumer run dry and stopped) the store read again while the impl still
// runs (its ZeroMQ sockets hold what they queued) and checked against every response.
func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	route, _ := r.Params["route"].(string)
	a, cleanup, err := stores(ctx, e, r)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	t, err := e.Target(ctx, r)
	if err != nil {
		return nil, err
	}
	cons := consumerOf(t, r, route)
	defer cons.stop()
	st, err := storeBeside(ctx, route, a, cons)
	if err != nil {
		return nil, err
	}
	defer st.close()
	sutEnv := a.environ()
	proxies, err := startProxies(ctx, r, route, t, sutEnv)
	if err != nil {
		return nil, err
	}
	defer proxies.Stop()
	fs, wf, err := faultsOf(r, t, route, a, st)
	if err != nil {
		return nil, err
	}
	var change int64
	var res *engine.Result
	var end time.Time
	var consErr, readErr error
	rec, err := web.MeasureImplWith(ctx, e, r, web.ImplRun{
		Path: route, Env: sutEnv, Services: a.used(route), Faults: wf,
		Options: func(o *httpbench.Options) { o.ExpectStatus = []int{200} },
		Config:  func(c *engine.Config) { c.Drain = true },
		Ready: func(string) error {
			if err := st.before(ctx); err != nil {
				return err
			}
			if err := proxies.Mark(); err != nil {
				return err
			}
			return cons.start(ctx, t, a) // before the load: a ZeroMQ consumer binds before the app pushes
		},
		Warm: cons.mark,
		Result: func(got *engine.Result) {
			res, end = got, time.Now()
			if consErr = cons.finish(ctx, end); consErr == nil {
				change, readErr = st.after(ctx)
			}
		},
	})
	if err != nil {
		return rec, err
	}
	rec.Processes = append(rec.Processes, cons.process(end)...)
	recordProxies(rec, proxies, res.Answered, r)
	if consErr != nil {
		return rec, consErr
	}
	if readErr != nil {
		return rec, fmt.Errorf("cachequeue: reading %s after the run: %w", st.describe(), readErr)
	}
	c := section(route, st.describe(), change, res, cons.report(end))
	c.Consumers, _ = r.Params["consumers"].(bool)
	rec.SetSection(Name, c)
	rec.Case = route // each route is its own group in the report
	if c.Consumer != nil {
		rec.Case += " with its consumer"
	}
	inject.MarkCase(rec)
	fs.apply(rec, c, res)

	if !c.Counted {
		return rec, fmt.Errorf("%w: %s", ErrCount, c.Detail)
	}
	return rec, nil
}

// section checks the store's change, plus what the consumer received when one ran, against the
// responses: a fake route must change nothing; any other between the responses and the
// responses plus the requests that got none.
func section(route, store string, change int64, res *engine.Result, cons *ConsumerRecord) *Record {
	c := &Record{Route: route, Store: store, Change: change, Answered: res.Answered, Unanswered: res.Unanswered, Consumer: cons}
	if cons == nil {
		c.Counted, c.Detail = check(route, change, res.Answered, res.Unanswered)
		return c
	}
	c.Counted, c.Detail = check(route, change+cons.Received, res.Answered, res.Unanswered)
	c.Detail += fmt.Sprintf(" (the store's change %d, %d received by %s)", change, cons.Received, cons.Command)
	return c
}

func check(route string, change, answered, unanswered int64) (bool, string) {
	if route == "/cache/fake" || route == "/queue/fake" {
		if change == 0 {
			return true, fmt.Sprintf("nothing moved in the stores over %d responses", answered)
		}
		return false, fmt.Sprintf("a fake route moved the stores by %d over %d responses; it must touch nothing", change, answered)
	}
	switch {
	case unanswered == 0 && change == answered:
		return true, fmt.Sprintf("%d counted for %d responses (warm-up included)", change, answered)
	case change >= answered && change <= answered+unanswered:
		return true, fmt.Sprintf("%d counted for %d responses (warm-up included) and %d requests without one", change, answered, unanswered)
	case change < answered:
		return false, fmt.Sprintf("%d counted for %d responses (warm-up included): %d fewer than the responses", change, answered, answered-change)
	}
	return false, fmt.Sprintf("%d counted for %d responses (warm-up included) and %d requests without one: %d more than were sent",
		change, answered, unanswered, change-answered-unanswered)
}
