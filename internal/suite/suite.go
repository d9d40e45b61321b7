// Package suite runs iobench's main job: the runs of a scenario suite one after another (repeats
// of variants already interleaved by package scenario), each by its workload from the registry
// (package workload), keeping every record. A run's impl comes from impls/ (package impl),
// whatever its language: it is installed and checked once per suite, and what runs share
// (services) is opened once and closed when the suite ends. A run that fails is reported as
// failed and the suite goes on; one whose impl's runtime or service is not installed here is
// skipped, naming what to install, and the suite goes on too.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// Options configure a suite run.
type Options struct {
	Binary    string   // the iobench executable that "iobench" in an impl's start.command means
	Impls     string   // the impls folder; empty means impl.DefaultRoot()
	StateDir  string   // where impls are installed; empty means the default state directory
	Command   []string // recorded in every result
	OnStart   func(i, n int, r scenario.Run)
	OnInstall func(impl string) // an impl is about to be installed (once per suite)
	// OnSkip is told, before any run, of each impl whose prerequisites are missing and each
	// local server that is not installed ("impl NAME", "the runs of SCENARIO"; err says what to
	// install); the runs that need them are skipped.
	OnSkip func(what string, err error)
	// OnDone is given each run's outcome as it ends (a skipped run's too), in order.
	OnDone   func(Outcome)
	OnSecond func(engine.Snapshot) // live figures of HTTP runs
	Progress io.Writer             // live line of bus runs; nil for none
}

// Outcome is one run's result: its record, or the error that stopped it (or both, when a run
// measured but failed verification), or why it was skipped. A record carries its verification
// (workload.Judge: the run's error, where it returned one, is its failed check).
type Outcome struct {
	Run    scenario.Run
	Record *result.Record
	Err    error
	// Skip says why the run did not start because something it needs is not installed on this
	// machine (NotInstalled): its impl's runtime or prerequisites, or a service's server. Err is
	// nil then: a skipped run is not a failed one.
	Skip error
}

// NotInstalled says whether err means that something a run needs is not installed here: an
// impl's runtime or prerequisite (impl.ErrMissing) or a server (service.ErrNotInstalled). Its
// message names what to install.
func NotInstalled(err error) bool {
	return errors.Is(err, impl.ErrMissing) || errors.Is(err, service.ErrNotInstalled)
}

// Run executes every run of s in order and returns their outcomes. First it checks what every
// run needs (prepare): the runs whose impl or local server is not installed are skipped, as is a
// run that finds something missing only when it begins. It stops early only when ctx ends; the
// outcomes so far are returned.
func Run(ctx context.Context, s *scenario.Suite, o Options) []Outcome {
	st := &state{opts: o, done: map[string]*result.Record{}, installs: map[string]installed{}, shared: map[string]shared{}}
	defer st.close()
	skip := st.prepare(ctx, s)
	e := &workload.Env{
		Target: st.target, Record: func(id string) *result.Record { return st.done[id] }, Suite: s,
		Share: st.share, Command: o.Command, OnSecond: o.OnSecond, Progress: o.Progress,
	}
	var out []Outcome
	for i, r := range s.Runs {
		if ctx.Err() != nil {
			break
		}
		if err, ok := skip[r.ID]; ok {
			out = append(out, o.done(Outcome{Run: r, Skip: err}))
			continue
		}
		if o.OnStart != nil {
			o.OnStart(i, len(s.Runs), r)
		}
		rec, err := run(ctx, e, r)
		if rec != nil {
			v := workload.Judge(rec, err)
			rec.Verification = &v
			if rec.Parameters == nil { // a workload's record need not have parameters of its own
				rec.Parameters = map[string]any{}
			}
			rec.Parameters["run_id"] = r.ID
			rec.Seed = seedOf(r.Seed)
			rec.Verdict = st.verdictOf(r.Verdict)
			st.done[r.ID] = rec
		}
		if rec == nil && NotInstalled(err) { // found missing only when the run began
			out = append(out, o.done(Outcome{Run: r, Skip: err}))
			continue
		}
		out = append(out, o.done(Outcome{Run: r, Record: rec, Err: err}))
	}
	return out
}

// done tells OnDone of an outcome and returns it.
func (o Options) done(out Outcome) Outcome {
	if o.OnDone != nil {
		o.OnDone(out)
	}
	return out
}

func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	w, ok := workload.Lookup(r.Workload)
	if !ok {
		return nil, fmt.Errorf("workload %q has no runner in this build", r.Workload)
	}
	return w.Run(ctx, e, r)
}

// seedOf is the seed's figure a run stands beside, as the record carries it.
func seedOf(s *scenario.SeedRow) *result.Seed {
	if s == nil {
		return nil
	}
	return &result.Seed{Source: s.Source, Label: s.Label, Throughput: s.Throughput,
		P50: float64(s.P50.Microseconds()), P99: float64(s.P99.Microseconds()), Errors: s.Errors, Phases: s.Phases}
}

// state is what runs of one suite share: finished records (an open loop takes its rate from
// its closed-loop peer), impls installed once and what runs share (services), opened once.
type state struct {
	opts     Options
	done     map[string]*result.Record
	installs map[string]installed
	shared   map[string]shared
	verdicts map[*scenario.Verdict]*result.Verdict
	closers  []func()
}

// shared is a value opened once per suite for runs that ask for the same key, or why it could
// not be.
type shared struct {
	value any
	err   error
}

func (st *state) share(key string, open func() (any, func(), error)) (any, error) {
	if s, ok := st.shared[key]; ok {
		return s.value, s.err
	}
	v, closeFn, err := open()
	st.shared[key] = shared{v, err}
	if closeFn != nil {
		st.closers = append(st.closers, closeFn)
	}
	return v, err
}

func (st *state) close() {
	for i := len(st.closers) - 1; i >= 0; i-- {
		st.closers[i]()
	}
}

// Known returns the scenario registry of this build's workloads (workload.Known) with the impls
// found under root: what scenario files are checked against.
func Known(root string) (scenario.Known, error) {
	entries, err := impl.List(root)
	if err != nil {
		return scenario.Known{}, err
	}
	return workload.Known(impl.WorkloadRefs(entries)), nil
}

// Executable returns the path of the running iobench, for the impls that run it.
func Executable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the iobench executable: %w", err)
	}
	return p, nil
}
