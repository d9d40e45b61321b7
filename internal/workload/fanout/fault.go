package fanout

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload/web"
)

// faultParam is fanout's fault parameter.
var faultParam = scenario.ParamSpec{Type: scenario.String, Check: fault.CheckParam,
	Doc: "faults during the measured phase: kill-sut@P%, or down-upstream@P%+D (a relay cuts the impl's upstream connections and refuses new ones for D), several joined by ;"}

// upstreamFaults are a run's faults: kill-sut is web's; down-upstream goes through a relay in
// front of the upstream (the inject relay when the run has one, else one of its own).
type upstreamFaults struct {
	web.Faults
	relay *inject.Proxy
	own   bool // the relay was started for the faults: stop stops it
}

// faultsOf reads the run's faults and, for a down-upstream, points sutEnv's upstream at a relay
// (proxies' when the run injects latency into the upstream).
func faultsOf(ctx context.Context, r scenario.Run, exe, upstreamURL string, proxies inject.Set, sutEnv map[string]string) (*upstreamFaults, error) {
	wf, err := web.FaultsOf(r)
	if err != nil || len(wf.Specs) == 0 {
		return &upstreamFaults{Faults: wf}, err
	}
	wf.Down = []string{"upstream"}
	f := &upstreamFaults{Faults: wf}
	if !slices.ContainsFunc(wf.Specs, func(s fault.Spec) bool { return s.Kind == fault.Down }) {
		return f, nil
	}
	if len(proxies) > 0 {
		f.relay = proxies[0]
	} else {
		up, err := inject.HostPort(upstreamURL)
		if err != nil {
			return nil, err
		}
		t := inject.Target{Spec: inject.Spec{Service: "upstream"}, Use: injectUses[0]}
		if f.relay, err = inject.Start(ctx, t, up, inject.Options{Executable: exe}); err != nil {
			return nil, err
		}
		f.own = true
		if sutEnv[env.UpstreamURL], err = inject.Redirect(upstreamURL, f.relay.Addr); err != nil {
			f.stop()
			return nil, err
		}
	}
	f.Act = f.down
	return f, nil
}

// down takes the relay down for the fault's length and returns once it has healed: a run of -n
// requests waits for the heal.
func (f *upstreamFaults) down(ctx context.Context, s fault.Spec, hit func()) error {
	if err := f.relay.Down(s.For); err != nil {
		return fmt.Errorf("fault %s: %w", s, err)
	}
	hit()
	t := time.NewTimer(s.For)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

func (f *upstreamFaults) stop() {
	if f.own && f.relay != nil {
		f.relay.Stop()
	}
}

// checkFaultCalls is the upstream's count under faults: every 2xx answer made its call; an
// answer of another status, or none, may have made one (a call cut by the relay, a kill after
// the call); nothing else may.
func checkFaultCalls(f *Record, rec *result.Record, res *engine.Result) {
	sec := fault.Section(rec)
	if sec == nil || res == nil {
		return
	}
	var other int64
	for _, n := range sec.Statuses {
		other += n
	}
	f.AnsweredOK = res.Answered - other
	hi := res.Answered + res.Unanswered
	switch {
	case f.UpstreamCalls >= f.AnsweredOK && f.UpstreamCalls <= hi:
		f.CallsVerified = true
		f.Calls = fmt.Sprintf("at most one upstream call per request under faults: %d calls for %d answered 2xx (warm-up included), %d other answers and %d requests without one",
			f.UpstreamCalls, f.AnsweredOK, other, res.Unanswered)
	case f.UpstreamCalls < f.AnsweredOK:
		f.CallsVerified = false
		f.Calls = fmt.Sprintf("%d upstream calls for %d answered 2xx (warm-up included): %d answers without their call", f.UpstreamCalls, f.AnsweredOK, f.AnsweredOK-f.UpstreamCalls)
	default:
		f.CallsVerified = false
		f.Calls = fmt.Sprintf("%d upstream calls: %d more than the %d requests answered or not", f.UpstreamCalls, f.UpstreamCalls-hi, hi)
	}
}
