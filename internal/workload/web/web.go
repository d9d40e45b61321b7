// Package web holds what the HTTP workloads share in a suite: the parameters of an HTTP run
// (Params), the open-loop rate taken from a closed-loop peer (Rate), measuring (Measure), and
// measuring an impl started on a free address (MeasureImpl). It registers the http workload,
// which loads any URL: its impl is only a label.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/cpuset"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/textblock"
	"github.com/iobench/iobench/internal/workload"
)

// Name is the http workload's id.
const Name = "http"

func init() {
	spec := Params()
	spec.Params["url"] = scenario.ParamSpec{Type: scenario.String, Required: true, Check: httpURL, Doc: "the URL to load, e.g. http://127.0.0.1:8080/"}
	spec.Params["method"] = scenario.ParamSpec{Type: scenario.String, Doc: "request method (GET if unset)"}
	spec.Params["keepalive"] = scenario.ParamSpec{Type: scenario.Bool, Doc: "keep connections open between requests (true if unset)"}
	spec.Params["expect_body"] = scenario.ParamSpec{Type: scenario.String, Doc: "a regular expression every response body must match"}
	workload.Register(workload.Workload{Name: Name, Spec: spec, AnyImpl: true, Run: run, Text: Text})
}

func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	rate, err := Rate(e, r)
	if err != nil {
		return nil, err
	}
	u, _ := r.Params["url"].(string)
	cfg, err := Options(r, u, rate).Config()
	if err != nil {
		return nil, err
	}
	if err := httpbench.Probe(ctx, cfg.Target, cfg.TLS, cfg.Timeout); err != nil {
		return nil, err
	}
	return Measure(ctx, e, r, cfg, "async")
}

// Params returns the scenario parameters every HTTP workload takes: load model, connections,
// threads, rate and timeout, timed with a 10 s default duration and 1 s warm-up.
func Params() scenario.WorkloadSpec {
	spec := scenario.WorkloadSpec{
		Params: map[string]scenario.ParamSpec{
			"load": {Type: scenario.String, Enum: []string{"closed", "open", Max}, Default: "closed",
				Doc: "closed (each connection waits for its response: peak throughput), open (a fixed rate: latency) or max (the highest rate within slo)"},
			"connections": {Type: scenario.Int, Check: scenario.Positive, Doc: "connections kept open"},
			"threads":     {Type: scenario.Int, Check: scenario.Positive, Doc: "generator threads"},
			"rate": {Type: scenario.Float, Check: scenario.NonNegative,
				Doc: "open loop: total requests per second; 0 or unset takes rate_of_peak of the closed loop's peak in the same repeat"},
			"arrivals": {Type: scenario.String, Enum: engine.ArrivalKinds,
				Doc: "open loop: even (requests exactly 1/rate apart, as wrk2) or poisson (random, independent arrivals averaging rate, as pgbench --rate), each run drawing new ones (its record keeps the seed); searches (load: max) too, a closed loop ignores it"},
			"rate_of_peak": {Type: scenario.Float, Check: fraction,
				Doc: "open loop without rate: the share of the closed-loop peak to offer, in (0, 1]; 0.5 if unset"},
			"timeout": {Type: scenario.Duration, Check: scenario.PositiveDuration, Doc: "a slower response counts as a timeout error"},
			"engine": {Type: scenario.String, Enum: engine.Engines,
				Doc: "the generator's engine: loop (epoll, the default where it runs) or goroutine (one per connection)"},
		},
		Timed: true, DefaultDuration: 10 * time.Second, DefaultWarmup: time.Second,
	}
	searchParams(spec.Params)
	return spec
}

// Options returns the generator options of an HTTP run against u at rate (0: closed loop).
func Options(r scenario.Run, u string, rate float64) httpbench.Options {
	o := httpbench.Options{
		URL: u, Duration: r.Duration, Warmup: r.Warmup, Timeout: 2 * time.Second,
		Connections: 10, Rate: rate, RateSet: rate > 0, Method: "GET",
	}
	if v, ok := r.Params["connections"].(int64); ok {
		o.Connections = int(v)
	}
	if v, ok := r.Params["threads"].(int64); ok {
		o.Threads = int(v)
	}
	if v, ok := r.Params["timeout"].(time.Duration); ok {
		o.Timeout = v
	}
	if v, ok := r.Params["method"].(string); ok && v != "" {
		o.Method = v
	}
	if v, ok := r.Params["keepalive"].(bool); ok {
		o.NoKeepAlive = !v
	}
	if v, ok := r.Params["expect_body"].(string); ok {
		o.ExpectBody = v
	}
	if v, ok := r.Params["engine"].(string); ok {
		o.Engine = v
	}
	if v, ok := r.Params["arrivals"].(string); ok && rate > 0 { // a search's steps take it in search
		o.Arrivals = v
	}
	return o
}

// ErrNoPeer is the error of an open-loop run without a rate whose closed-loop peer is missing.
var ErrNoPeer = errors.New("no closed-loop peak to take the open-loop rate from")

// Rate returns 0 for a closed loop, else the open loop's rate: the run's rate, or rate_of_peak
// (0.5 if unset) of the mean throughput of its closed-loop peer, which must have run before it.
func Rate(e *workload.Env, r scenario.Run) (float64, error) {
	if load, _ := r.Params["load"].(string); load != "open" {
		return 0, nil
	}
	if v, _ := r.Params["rate"].(float64); v > 0 {
		return v, nil
	}
	share := 0.5
	if v, ok := r.Params["rate_of_peak"].(float64); ok && v > 0 {
		share = v
	}
	peer, ok := e.Suite.Peer(r, "load", "closed")
	if !ok || peer.Index > r.Index {
		return 0, fmt.Errorf("%w: add load: closed to the scenario, or set rate", ErrNoPeer)
	}
	rec := e.Record(peer.ID)
	if rec == nil || rec.Throughput.Mean < 1 {
		return 0, fmt.Errorf("%w: its run %s failed", ErrNoPeer, peer.ID)
	}
	return rec.Throughput.Mean * share, nil
}

// Measure runs the generator with cfg and returns the record of run r.
func Measure(ctx context.Context, e *workload.Env, r scenario.Run, cfg engine.Config, mode string) (*result.Record, error) {
	return measure(ctx, e, r, cfg, httpbench.Meta{Mode: mode})
}

func measure(ctx context.Context, e *workload.Env, r scenario.Run, cfg engine.Config, m httpbench.Meta) (*result.Record, error) {
	cfg.OnSecond = e.OnSecond
	m.Workload, m.Impl, m.Command, m.Params = r.Workload, r.Impl, e.Command, r.Params
	if IsMax(r) {
		return search(ctx, r, cfg, m, e.Progress)
	}
	if err := searchOnly(r); err != nil {
		return nil, err
	}
	return httpbench.Measure(ctx, cfg, m)
}

// MeasureImpl starts the run's impl on its listen address (or a free one), loads path with the
// options edit gives, and adds the impl's own cost over the measured phase to the record.
func MeasureImpl(ctx context.Context, e *workload.Env, r scenario.Run, path string, edit func(*httpbench.Options)) (*result.Record, error) {
	return MeasureImplWith(ctx, e, r, ImplRun{Path: path, Options: edit})
}

// ImplRun is what an HTTP workload asks of MeasureImplWith beyond the path it loads.
type ImplRun struct {
	Path    string
	Env     map[string]string        // more environment for the impl (IOBENCH_UPSTREAM_URL)
	Options func(*httpbench.Options) // edits the generator's options
	Config  func(*engine.Config)     // edits the checked engine configuration (Drain, Timing)
	// Ready runs once the impl is ready, before any load (a baseline count); its error ends the run.
	Ready func(addr string) error
	// After runs once the load has ended and the impl is found still running, before it is
	// stopped: a check of the impl after its load (a connection limit's probe) into the record.
	After func(ctx context.Context, addr string, rec *result.Record)
	// Warm runs when the warm-up ends, where the impl's cost starts counting (the cost of what
	// the workload runs beside it).
	Warm func()
	// Result sees the engine's result (httpbench.Meta.Result), once the impl's cost over the
	// measured phase is taken.
	Result func(*engine.Result)
	// Services are services the impl uses (a cachequeue run's stores): each whose processes
	// iobench can see is recorded as a `service` process with its cost over the measured phase,
	// after the impl and its front (nginx for a php_fpm impl).
	Services []*service.Instance
	// Faults strike during the measured phase (fault.go); the record gets a faults section.
	Faults Faults
}

// MeasureImplWith is MeasureImpl with what ir adds: the impl's extra environment, the edits of
// the generator, hooks once the impl is ready and when the warm-up ends, one on the engine's
// result, and the services whose cost it records.
func MeasureImplWith(ctx context.Context, e *workload.Env, r scenario.Run, ir ImplRun) (*result.Record, error) {
	t, err := e.Target(ctx, r) // first: an impl not installed here skips the open loop as its peer
	if err != nil {
		return nil, err
	}
	rate, err := Rate(e, r)
	if err != nil {
		return nil, err
	}
	addr, err := listenAddr(r)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{env.Listen: addr}
	for k, v := range ir.Env {
		vars[k] = v
	}
	o := Options(r, "http://"+addr+ir.Path, rate)
	if ir.Options != nil {
		ir.Options(&o)
	}
	cfg, err := o.Config()
	if err != nil {
		return nil, err
	}
	if ir.Config != nil {
		ir.Config(&cfg)
	}
	if err := ir.Faults.check(r, t); err != nil {
		return nil, err
	}
	p, err := t.Inst.Start(ctx, impl.StartOptions{Variant: t.Variant.Name, Env: vars, CPUs: r.CPUs.SUT})
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	if ir.Ready != nil {
		if err := ir.Ready(addr); err != nil {
			return nil, err
		}
	}
	svcs := servicesOf(append([]*service.Instance{p.Front}, ir.Services...)...)
	measured := cfg.UntilMeasured()
	c := &cost{name: t.Name(), cpus: r.CPUs.SUT.String(), p: p, svcs: svcs, from: time.Now().Add(measured)}
	mark := time.AfterFunc(measured, func() { c.mark(ir.Warm) })
	defer mark.Stop()
	faults := ir.Faults.start(ctx, &cfg, c.from, p)
	defer faults.stop()
	var faultErr error
	taken := c.taken(ir.Result)
	rec, err := measurePinned(ctx, e, r, cfg, httpbench.Meta{Mode: t.Variant.Mode, Result: func(res *engine.Result) {
		faultErr = faults.wait() // the impl whole again before its cost is read
		taken(res)
	}})
	faults.record(rec)
	if err == nil {
		err = faultErr
	}
	if err != nil {
		return rec, err
	}
	t.Label(rec)
	select {
	case <-p.Done():
		return rec, fmt.Errorf("impl %s exited during the run: %s; log %s", t.Name(), p.Tail(), p.LogPath())
	default:
	}
	if ir.After != nil {
		ir.After(ctx, addr, rec)
	}
	rec.Processes = append(rec.Processes, c.procs...)
	for k, v := range p.Versions() {
		rec.Environment.SetVersion(k, v)
	}
	return rec, nil
}

// measurePinned is measure with iobench's threads on the scenario's generator CPUs, if it names
// any, and the record's generator entry saying so.
func measurePinned(ctx context.Context, e *workload.Env, r scenario.Run, cfg engine.Config, m httpbench.Meta) (*result.Record, error) {
	restore, err := cpuset.Pin(r.CPUs.Generator)
	if err != nil {
		return nil, err
	}
	rec, err := measure(ctx, e, r, cfg, m)
	restore()
	if rec != nil {
		for i := range rec.Processes {
			if rec.Processes[i].Role == "generator" {
				rec.Processes[i].CPUs = r.CPUs.Generator.String()
			}
		}
	}
	return rec, err
}

// listenAddr is the run's listen parameter, or a free port of 127.0.0.1.
func listenAddr(r scenario.Run) (string, error) {
	addr, _ := r.Params["listen"].(string)
	if addr == "" || addr == "auto" {
		return sut.FreeAddr()
	}
	return addr, nil
}

func fraction(v any) error {
	if f, ok := v.(float64); ok && (f <= 0 || f > 1) {
		return fmt.Errorf("must be in (0, 1], got %g", f)
	}
	return nil
}

func httpURL(v any) error {
	s, _ := v.(string)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// URL", s)
	}
	return nil
}

// Routes is how verify checks the routes of an HTTP workload's impl (VerifyRoutes).
type Routes struct {
	Check RouteCheck        // each route's check
	Env   map[string]string // more environment than IOBENCH_LISTEN (the addresses of a store)
	More  MoreCheck         // more checked of each variant while it runs, nil for nothing
}

// MoreCheck checks a started variant listening on addr beyond its routes over HTTP/1.1 (hello:
// GET / over h2c): it returns what it checked ("" for nothing) and the problems it found.
type MoreCheck func(ctx context.Context, addr string, variant impl.Variant) (checked string, problems []impl.RouteProblem)

// VerifyRoutes starts each variant of inst on a free port, checks the routes it declares for
// workload w as rc says (CheckRoutes with rc.Check, then rc.More) and writes each problem, seed
// flaw reproduced or failure to v.Out; it returns the number of failures.
func VerifyRoutes(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation, w string, rc Routes) (int, error) {
	failures := 0
	for _, variant := range inst.Manifest.Variants {
		failures += verifyVariant(ctx, v, inst, w, variant, rc)
	}
	return failures, nil
}

func verifyVariant(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation, w string, variant impl.Variant, rc Routes) int {
	label := w + " " + variant.Name
	fail := func(err error) int {
		fmt.Fprintf(v.Out, "  FAIL %s: %s\n", label, oneLine(err.Error()))
		return 1
	}
	addr, err := sut.FreeAddr()
	if err != nil {
		return fail(err)
	}
	e := map[string]string{env.Listen: addr}
	for k, val := range rc.Env {
		e[k] = val
	}
	p, err := inst.Start(ctx, impl.StartOptions{Variant: variant.Name, Env: e})
	if err != nil {
		return fail(err)
	}
	routes := inst.Manifest.Routes(w)
	problems := CheckRoutes(ctx, addr, routes, rc.Check)
	checked := ""
	if rc.More != nil {
		var also []impl.RouteProblem
		checked, also = rc.More(ctx, addr, variant)
		problems = append(problems, also...)
	}
	verdict := impl.Judge(variant, problems)
	p.Stop()
	writeVerdict(v.Out, label, verdict, len(routes), checked)
	return len(verdict.Failures)
}

// writeVerdict writes a variant's verdict: each seed flaw reproduced, failure and flaw left to a
// run, else one ok line that says what more was checked.
func writeVerdict(out io.Writer, label string, verdict impl.Verdict, routes int, checked string) {
	for _, r := range verdict.Reproduced {
		fmt.Fprintf(out, "  flaw %s: seed flaw reproduced: %s\n", label, r)
	}
	for _, f := range verdict.Failures {
		fmt.Fprintf(out, "  FAIL %s: %s\n", label, f)
	}
	for _, id := range verdict.Unchecked {
		fmt.Fprintf(out, "  note %s: expected seed flaw %s shows only under load (iobench run)\n", label, id)
	}
	if len(verdict.Failures) == 0 && len(verdict.Reproduced) == 0 {
		if checked != "" {
			checked = "; " + checked + " answers too"
		}
		fmt.Fprintf(out, "  ok   %s: %d route(s) answer as docs/IMPLS.md, \"The HTTP routes\", says%s\n", label, routes, checked)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Text writes an HTTP record's text block in wrk's layout, latency distribution included.
func Text(w io.Writer, rec *result.Record) error {
	if !capacityText(w, rec) {
		textblock.HTTP(w, rec, textblock.TextOptions{Latency: true})
	}
	fault.Text(w, rec)
	return nil
}

// Serve serves h on ln with net/http until ctx ends: the Go impls of the HTTP workloads.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
