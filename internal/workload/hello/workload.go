package hello

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/fault"
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

// DefaultStreams is the concurrent streams per connection of a run of an HTTP/2 variant whose
// scenario gives no streams.
const DefaultStreams = 10

func init() {
	spec := web.Params()
	spec.Params["listen"] = scenario.ParamSpec{Type: scenario.Addr, Doc: "where the SUT listens: host:port, or auto for a free port of 127.0.0.1"}
	spec.Params["keepalive"] = scenario.ParamSpec{Type: scenario.Bool, Default: true,
		Doc: "keep connections open between requests (wrk's way); false closes after each (ab without -k)"}
	spec.Params["streams"] = scenario.ParamSpec{Type: scenario.Int, Check: streamsInRange,
		Doc: fmt.Sprintf("HTTP/2 variants (protocols: h2c in the manifest): concurrent streams per connection, %d if unset; HTTP/1.1 variants ignore it", DefaultStreams)}
	spec.Params[fault.Param] = faultParam
	workload.Register(workload.Workload{Name: Name, Spec: spec, Manifest: section, Run: run, Verify: verify,
		Text: web.Text, Flaw: flaw, FlawCounts: turnedAway, Serve: serveCommands, Tables: []workload.TableFunc{fault.Table}})
}

// run starts the run's impl and loads GET /, every response checked: status 200, body Body,
// over the protocol its variant declares (ProtocolOf). A variant that expects a connection limit
// is probed once its load has ended (probeLimit).
func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	t, err := e.Target(ctx, r)
	if err != nil {
		return nil, err
	}
	h2c := ProtocolOf(t.Inst.Manifest, t.Variant.Name) == ProtocolH2C
	keep, _ := r.Params["keepalive"].(bool)
	if h2c && !keep {
		return nil, fmt.Errorf("%w: keepalive: false with %s, which speaks HTTP/2 (h2c): HTTP/2 keeps its connections; drop keepalive or the variant",
			fail.ErrBadInput, t.Name()+":"+t.Variant.Name)
	}
	r = protocolParams(r, h2c)
	faults, err := web.FaultsOf(r)
	if err != nil {
		return nil, err
	}
	rec, err := web.MeasureImplWith(ctx, e, r, web.ImplRun{Path: "/", Faults: faults, Options: func(o *httpbench.Options) {
		o.ExpectStatus, o.ExpectBody = []int{200}, "^"+Body+"$"
		if h2c {
			o.H2C, o.Streams, o.StreamsSet = true, int(r.Params["streams"].(int64)), true
		}
	}, After: probeLimit(r)})
	if rec != nil && !keep {
		rec.Case = strings.TrimSpace("no keep-alive " + rec.Case) // its own group beside the keep-alive runs
	}
	if rec != nil {
		rec.Case = fault.WithCase(rec.Case, rec)
	}
	return rec, err
}

// protocolParams returns r with the parameters of its protocol: an HTTP/2 run's streams (the
// default filled in), none for an HTTP/1.1 run, whose record then says nothing of streams (and
// so pools with the runs of the same setup that never had them).
func protocolParams(r scenario.Run, h2c bool) scenario.Run {
	_, set := r.Params["streams"]
	if h2c == set {
		return r
	}
	r.Params = maps.Clone(r.Params)
	if h2c {
		r.Params["streams"] = int64(DefaultStreams)
	} else {
		delete(r.Params, "streams")
	}
	return r
}

// streamsInRange checks the streams parameter: 1 to engine.MaxDepth.
func streamsInRange(v any) error {
	if n, ok := v.(int64); ok && (n < 1 || n > engine.MaxDepth) {
		return fmt.Errorf("must be 1 to %d, got %d", engine.MaxDepth, n)
	}
	return nil
}

// verify checks each route of every variant of inst (checkRoute) and GET / over h2c of a variant
// that speaks it (checkProtocol).
func verify(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation) (int, error) {
	return web.VerifyRoutes(ctx, v, inst, Name, web.Routes{Check: checkRoute, More: checkProtocol(inst.Manifest)})
}
