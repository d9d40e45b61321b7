package hello

import (
	"context"

	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// Name is the hello workload's id.
const Name = "hello"

// Body is what every hello impl answers to GET /.
const Body = "Hello world!"

func init() {
	spec := web.Params()
	spec.Params["listen"] = scenario.ParamSpec{Type: scenario.Addr, Doc: "where the SUT listens: host:port, or auto for a free port of 127.0.0.1"}
	spec.Params["keepalive"] = scenario.ParamSpec{Type: scenario.Bool, Default: true,
		Doc: "keep connections open between requests (wrk's way); false closes after each (ab without -k)"}
	workload.Register(workload.Workload{Name: Name, Spec: spec, Manifest: impl.HTTPSection, Run: run, Verify: verify,
		Text: web.Text, Flaw: flaw, Serve: serveCommands})
}

// run starts the run's impl and loads GET /, every response checked: status 200, body Body.
// A variant that expects a connection limit is probed once its load has ended (probeLimit).
func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	rec, err := web.MeasureImplWith(ctx, e, r, web.ImplRun{Path: "/", Options: func(o *httpbench.Options) {
		o.ExpectStatus, o.ExpectBody = []int{200}, "^"+Body+"$"
	}, After: probeLimit(r)})
	if keep, ok := r.Params["keepalive"].(bool); ok && !keep && rec != nil {
		rec.Case = "no keep-alive" // its own group beside the keep-alive runs
	}
	return rec, err
}

func verify(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation) (int, error) {
	return web.VerifyRoutes(ctx, v, inst, Name)
}
