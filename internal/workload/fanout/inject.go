package fanout

import (
	"context"
	"fmt"
	"strings"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
)

// injectUses is the one service a fanout run uses: iobench's upstream, whose URL every impl gets
// in IOBENCH_UPSTREAM_URL.
var injectUses = []inject.Use{{Role: "upstream", Kind: "upstream", Var: env.UpstreamURL}}

// startProxies puts a relay in front of the upstream when r's inject param asks for one, and
// points sutEnv's upstream URL at it; iobench's own count of calls goes direct.
func startProxies(ctx context.Context, r scenario.Run, impl, exe string, sutEnv map[string]string) (inject.Set, error) {
	specs, err := inject.FromParams(r.Params)
	if err != nil || len(specs) == 0 {
		return nil, err
	}
	targets, err := inject.Resolve(specs, injectUses, impl)
	if err != nil {
		return nil, err
	}
	set, vars, err := inject.StartAll(ctx, targets, sutEnv, inject.Options{Executable: exe})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", fail.ErrBadInput, err)
	}
	for k, v := range vars {
		sutEnv[k] = v
	}
	return set, nil
}

// recordProxies adds what the relays achieved to rec, per upstream call, and the injection
// among its parameters.
func recordProxies(rec *result.Record, set inject.Set, calls int64, r scenario.Run) {
	if len(set) == 0 {
		return
	}
	set.Record(rec, calls, rec.Duration.Std())
	if s, _ := r.Params[inject.Param].(string); s != "" && rec.Parameters != nil {
		rec.Parameters[inject.Param] = strings.TrimSpace(s)
	}
}
