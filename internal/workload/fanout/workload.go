package fanout

import (
	"fmt"
	"io"
	"time"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// Name is the fanout workload's id.
const Name = "fanout"

// Metric is the Server-Timing metric whose dur is an impl's handling time.
const Metric = "app"

func init() {
	workload.Register(workload.Workload{
		Name: Name, Spec: Spec(), Manifest: impl.HTTPSection,
		Run: run, Verify: verify, Text: Text, Verified: verified,
		Figures: map[string]workload.FigureFunc{"overlap": func(rec *result.Record) (float64, bool) {
			if f := Section(rec); f != nil && f.Overlap > 0 {
				return f.Overlap, true
			}
			return 0, false
		}},
		Tables:  []workload.TableFunc{overlapTable, inject.SweepTable, fault.Table},
		Command: newCommand, Serve: serveCommands,
	})
}

// verified is the fanout check of a record (workload.Workload.Verified): the upstream counted
// exactly one call per request.
func verified(rec *result.Record) (bool, string) {
	switch f := Section(rec); {
	case f == nil:
		return false, "the record has no fanout section"
	case !f.CallsVerified:
		return false, "the upstream's count: " + f.Calls
	}
	return true, ""
}

// Spec returns the fanout workload's scenario parameters: those of every HTTP workload, the
// route, ab's request count (300 at 10 connections by default: the seed's scenario 2), the
// upstream's delay and the work.
func Spec() scenario.WorkloadSpec {
	spec := web.Params()
	p := spec.Params
	p["listen"] = scenario.ParamSpec{Type: scenario.Addr, Doc: "where the SUT listens: host:port, or auto for a free port of 127.0.0.1"}
	p["route"] = scenario.ParamSpec{Type: scenario.String, Enum: Routes, Required: true,
		Doc: "/sync (call, then work), /async (the seed's shape: start the call, work, wait) or /async-overlap (both at once)"}
	p["connections"] = scenario.ParamSpec{Type: scenario.Int, Check: scenario.Positive, Default: int64(10), Doc: "connections kept open (ab's -c)"}
	p["requests"] = scenario.ParamSpec{Type: scenario.Int, Check: scenario.NonNegative, Default: int64(300),
		Doc: "requests in all after the warm-up (ab's -n); 0 measures for the duration instead"}
	p["upstream_delay"] = scenario.ParamSpec{Type: scenario.Duration, Check: nonNegativeDuration, Default: DefaultDelay,
		Doc: "how long the upstream waits before answering"}
	p[inject.Param] = scenario.ParamSpec{Type: scenario.String, Check: inject.CheckParam, SUT: true,
		Doc: "delay the upstream's answers to the impl through a relay: upstream:latency=5ms[,jitter=200us]"}
	p[fault.Param] = faultParam
	p["work"] = scenario.ParamSpec{Type: scenario.Duration, Check: nonNegativeDuration, Default: DefaultWork, SUT: true,
		Doc: "the local work per request, during which the request makes no progress"}
	return spec
}

func nonNegativeDuration(v any) error {
	if d, ok := v.(time.Duration); ok && d < 0 {
		return fmt.Errorf("must not be negative")
	}
	return nil
}

// ModeOf is the record's mode of a route: sync, async or async-overlap.
func ModeOf(route string) string { return route[1:] }

// Text writes a fanout record's text block: wrk's layout, then the route, the calls counted at
// the upstream, the handling time and the overlap verdict, and the median apart from the tail.
func Text(w io.Writer, rec *result.Record) error {
	if err := web.Text(w, rec); err != nil {
		return err
	}
	f := Section(rec)
	if f == nil {
		return nil
	}
	fmt.Fprintf(w, "  Route %s: upstream delay %v, work %v\n", f.Route, f.UpstreamDelay.Std(), f.Work.Std())
	mark := "verified"
	if !f.CallsVerified {
		mark = "FAILED"
	}
	for _, line := range inject.Lines(rec) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintf(w, "  Upstream calls (%s): %s\n", mark, f.Calls)
	if h := f.Handling; h != nil && h.Count > 0 {
		fmt.Fprintf(w, "  Handling time (the service's Server-Timing, under load): p50 %s, p99 %s, max %s over %d responses\n",
			units.Micros(h.At(50)), units.Micros(h.At(99)), units.Micros(h.Max), h.Count)
	}
	fmt.Fprintf(w, "  Overlap ratio %.2f ((delay + work) / handling p50): %s\n", f.Overlap, f.Verdict)
	if l := rec.Latency; l != nil && l.Count > 0 {
		fmt.Fprintf(w, "  Latency median %s, tail p99 %s, max %s\n", units.Micros(l.At(50)), units.Micros(l.At(99)), units.Micros(l.Max))
	}
	if f.VsSync != "" {
		fmt.Fprintf(w, "  %s\n", f.VsSync)
	}
	return nil
}
