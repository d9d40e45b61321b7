package fanout

import (
	"context"

	"github.com/iobench/iobench/internal/env"
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
	if err != nil {
		return nil, err
	}
	return inject.Open(ctx, specs, injectUses, impl, sutEnv, inject.Options{Executable: exe})
}

// recordProxies adds what the relays achieved to rec, per upstream call, and the injection
// among its parameters.
func recordProxies(rec *result.Record, set inject.Set, calls int64, r scenario.Run) {
	specs, _ := inject.FromParams(r.Params)
	set.RecordRun(rec, calls, rec.Duration.Std(), specs)
}
