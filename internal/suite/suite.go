// Package suite runs iobench's main job: the runs of a scenario suite one after another (repeats
// of variants already interleaved by package scenario), each on its system under test, keeping
// every record. A run's impl comes from impls/ (package impl), whatever its language: it is
// installed and checked once per suite, started with the IOBENCH_* environment (package env),
// and its own process cost goes into the record. A run that fails is reported as failed and the
// suite goes on.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
)

// Options configure a suite run.
type Options struct {
	Binary    string   // the iobench executable that "iobench" in an impl's start.command means
	Impls     string   // the impls folder; empty means impl.DefaultRoot()
	StateDir  string   // where impls are installed; empty means the default state directory
	Command   []string // recorded in every result
	OnStart   func(i, n int, r scenario.Run)
	OnInstall func(impl string)     // an impl is about to be installed (once per suite)
	OnSecond  func(engine.Snapshot) // live figures of HTTP runs
	Progress  io.Writer             // live line of bus runs; nil for none
}

// Outcome is one run's result: its record, or the error that stopped it (or both, when a run
// measured but failed verification).
type Outcome struct {
	Run    scenario.Run
	Record *result.Record
	Err    error
}

// Run executes every run of s in order and returns their outcomes. It stops early only when ctx
// ends; the outcomes so far are returned.
func Run(ctx context.Context, s *scenario.Suite, o Options) []Outcome {
	st := &state{suite: s, opts: o, done: map[string]*result.Record{}, installs: map[string]installed{}}
	defer st.close()
	var out []Outcome
	for i, r := range s.Runs {
		if ctx.Err() != nil {
			break
		}
		if o.OnStart != nil {
			o.OnStart(i, len(s.Runs), r)
		}
		rec, err := st.run(ctx, r)
		if rec != nil {
			rec.Parameters["run_id"] = r.ID
			st.done[r.ID] = rec
		}
		out = append(out, Outcome{Run: r, Record: rec, Err: err})
	}
	return out
}

// state is what runs of one suite share: finished records (an open loop takes its rate from
// its closed-loop peer), impls installed once and services started once for every bus run.
type state struct {
	suite    *scenario.Suite
	opts     Options
	done     map[string]*result.Record
	installs map[string]installed
	services map[string]*busServices
}

func (st *state) run(ctx context.Context, r scenario.Run) (*result.Record, error) {
	switch r.Workload {
	case "hello", "http":
		return st.http(ctx, r)
	case "bus":
		return st.bus(ctx, r)
	}
	return nil, fmt.Errorf("workload %q has no runner in this build", r.Workload)
}

func (st *state) close() {
	for _, s := range st.services {
		s.close()
	}
}

// Executable returns the path of the running iobench, for the impls that run it.
func Executable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the iobench executable: %w", err)
	}
	return p, nil
}

var errNoPeer = errors.New("no closed-loop peak to take the open-loop rate from")
