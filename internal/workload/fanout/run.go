package fanout

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// ErrCalls is the error of a run whose service did not make exactly one upstream call per
// request.
var ErrCalls = errors.New("fanout: upstream calls do not match the requests")

// bodyPattern is what every answer's body must be: the upstream's JSON, re-encoded or not.
const bodyPattern = `^\s*\{\s*"foo"\s*:\s*"bar"\s*\}\s*$`

// HandlingSource says in the record how the handling time was measured.
const HandlingSource = "Server-Timing app;dur of every counted success, under the run's load"

// run measures one fanout run: the upstream, then the impl, load on the route with a drain at
// the end, then the upstream's count against the responses and the overlap of call and work.
func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	route, _ := r.Params["route"].(string)
	delay := durationParam(r, "upstream_delay", DefaultDelay)
	work := durationParam(r, "work", DefaultWork)
	requests, _ := r.Params["requests"].(int64)
	if load, _ := r.Params["load"].(string); load == "open" {
		requests = 0 // an open loop runs for a duration
	}
	t, err := e.Target(ctx, r)
	if err != nil {
		return nil, err
	}
	up, err := startUpstream(ctx, t.Inst.Executable, filepath.Join(t.Inst.Dir, "logs"), delay)
	if err != nil {
		return nil, err
	}
	defer up.stop()
	sutEnv := map[string]string{env.UpstreamURL: up.url, env.WorkMS: millis(work)}
	proxies, err := startProxies(ctx, r, t.Name(), t.Inst.Executable, sutEnv)
	if err != nil {
		return nil, err
	}
	defer proxies.Stop()
	faults, err := faultsOf(ctx, r, t.Inst.Executable, up.url, proxies, sutEnv)
	if err != nil {
		return nil, err
	}
	defer faults.stop()
	var res *engine.Result
	var base int64
	rec, err := web.MeasureImplWith(ctx, e, r, web.ImplRun{
		Path:   route,
		Env:    sutEnv,
		Faults: faults.Faults,
		Options: func(o *httpbench.Options) {
			o.Requests, o.ExpectStatus, o.ExpectBody = requests, []int{200}, bodyPattern
		},
		Config: func(c *engine.Config) { c.Drain, c.Timing = true, Metric },
		Ready: func(string) (err error) {
			up.marked = time.Now().Add(r.Warmup) // the upstream's cost counts from the end of the warm-up too
			up.mark = time.AfterFunc(r.Warmup, up.p.Mark)
			if base, err = Count(ctx, up.url); err != nil {
				return err
			}
			return proxies.Mark()
		},
		Result: func(got *engine.Result) { res = got },
	})
	if err != nil {
		return rec, err
	}
	calls, err := Count(ctx, up.url)
	if err != nil {
		return rec, fmt.Errorf("after the run: %w", err)
	}
	rec.Processes = append(rec.Processes, result.NewProcess("upstream", "service", up.p.PID(), up.p.Usage(), time.Since(up.marked)))
	recordProxies(rec, proxies, calls-base, r)
	rec.Mode, rec.Case = ModeOf(route), caseOf(r, rec)
	inject.MarkCase(rec)
	f := section(route, delay, work, calls-base, res)
	checkFaultCalls(f, rec, res)
	rec.Case = fault.WithCase(rec.Case, rec)
	rec.SetSection(Name, f)
	if route != "/sync" {
		if peer, ok := e.Suite.Peer(r, "route", "/sync"); ok && e.Record != nil {
			f.VsSync = Compare(rec, e.Record(peer.ID))
		}
	}
	if !f.CallsVerified {
		return rec, fmt.Errorf("%w: %s", ErrCalls, f.Calls)
	}
	return rec, nil
}

// section fills the record's fanout section from the upstream's count and the engine's result.
func section(route string, delay, work time.Duration, calls int64, res *engine.Result) *Record {
	f := &Record{Route: route, UpstreamDelay: result.Duration(delay), Work: result.Duration(work),
		UpstreamCalls: calls, Answered: res.Answered, Unanswered: res.Unanswered, HandlingSource: HandlingSource}
	f.CallsVerified, f.Calls = CheckCalls(calls, res.Answered, res.Unanswered)
	if res.Timing != nil {
		f.Untimed = res.Untimed
		if res.Timing.Count() > 0 {
			f.Handling = res.Timing.Summary()
			p50 := time.Duration(f.Handling.At(50) * float64(time.Microsecond))
			f.Overlap = float64(int(Overlap(delay, work, p50)*100+0.5)) / 100
		}
	}
	f.Verdict = VerdictOf(f.Overlap)
	return f
}

// caseOf names the run's size for grouping (the route is its mode): "c10 n300", "c10 10s R500".
func caseOf(r scenario.Run, rec *result.Record) string {
	c, _ := r.Params["connections"].(int64)
	if web.IsMax(r) { // the search's rate is its outcome, not its case; -c is its own only when set
		if !r.Given["connections"] {
			return "find-max"
		}
		return fmt.Sprintf("c%d find-max", c)
	}
	size := rec.Duration.Std().Round(time.Second).String()
	if n, _ := r.Params["requests"].(int64); n > 0 && rec.LoadModel != "open" {
		size = fmt.Sprintf("n%d", n)
	}
	if rec.LoadModel == "open" {
		size += fmt.Sprintf(" R%.0f", rec.Throughput.TargetRate)
	}
	return strings.TrimSpace(fmt.Sprintf("c%d %s %s", c, size, rec.Case)) // the generator's: poisson
}

func durationParam(r scenario.Run, name string, def time.Duration) time.Duration {
	if d, ok := r.Params[name].(time.Duration); ok {
		return d
	}
	return def
}

// millis writes d for IOBENCH_WORK_MS and IOBENCH_UPSTREAM_DELAY_MS: "10", "2.5".
func millis(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', -1, 64)
}

// upstream is a running `iobench serve upstream`.
type upstream struct {
	p      *sut.Process
	url    string
	marked time.Time   // when its cost began to count
	mark   *time.Timer // marks it at the end of the warm-up
}

// startUpstream runs the upstream through the one runner, on a free port of 127.0.0.1.
func startUpstream(ctx context.Context, exe, logDir string, delay time.Duration) (*upstream, error) {
	addr, err := sut.FreeAddr()
	if err != nil {
		return nil, err
	}
	p, err := sut.Start(ctx, sut.Options{
		Name: "upstream", Argv: []string{exe, "serve", "upstream"}, LogDir: logDir,
		Env:   sut.Environ(env.Listen+"="+addr, env.UpstreamDelay+"="+millis(delay)),
		Ready: sut.Ready{TCP: addr, Timeout: 10 * time.Second},
	})
	if err != nil {
		return nil, fmt.Errorf("the upstream (iobench serve upstream) did not start: %w", err)
	}
	return &upstream{p: p, url: "http://" + addr + "/", marked: time.Now()}, nil
}

func (u *upstream) stop() {
	if u.mark != nil {
		u.mark.Stop()
	}
	_ = u.p.Stop()
}

// ParseMillis reads IOBENCH_WORK_MS or IOBENCH_UPSTREAM_DELAY_MS: a number of milliseconds, 0 or
// more ("10", "2.5").
func ParseMillis(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 3_600_000 {
		return 0, fmt.Errorf("want milliseconds, 0 or more, e.g. 10")
	}
	return time.Duration(f * float64(time.Millisecond)), nil
}
