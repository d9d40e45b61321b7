package web

import (
	"context"
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// Faults are an HTTP run's faults (ImplRun.Faults): the run's specs, what it can restart or cut,
// and the workload's action for those. kill-sut is web's own: KillAndRestart of the impl.
type Faults struct {
	Specs []fault.Spec
	// Restart and Down list the services the run can restart and cut (fault.Run); OptedIn says
	// whether the variant reconnects after a restart of a service (nil: every variant does).
	Restart, Down []string
	OptedIn       func(service string) bool
	// Act restarts or cuts a service; nil when the run has none to.
	Act fault.Action
	// Killed runs after kill-sut has killed the impl, before it starts again (what the
	// workload counts at the kill).
	Killed func()
}

// FaultsOf reads the run's fault parameter (fault.Param) into Faults, none without it.
func FaultsOf(r scenario.Run) (Faults, error) {
	specs, err := fault.FromParams(r.Params)
	return Faults{Specs: specs}, err
}

// check refuses the faults the run cannot take (fault.Check), before the impl starts.
func (f Faults) check(r scenario.Run, t workload.Target) error {
	return fault.Check(f.Specs, fault.Run{Workload: r.Workload, Target: t.Name() + ":" + t.Variant.Name,
		Restart: f.Restart, Down: f.Down, OptedIn: f.OptedIn, Length: r.Duration})
}

// faultRun is the faults of one measured phase: the watch, and the impl kill-sut restarts.
type faultRun struct {
	f      Faults
	w      *fault.Watch
	p      *impl.Process
	cancel context.CancelFunc
}

// start sets cfg to hand every counted request's end to a new watch of a measured phase that
// begins at from, and schedules the faults; nil when the run has none. stop drops the faults
// that have not struck yet.
func (f Faults) start(ctx context.Context, cfg *engine.Config, from time.Time, p *impl.Process) *faultRun {
	if len(f.Specs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	fr := &faultRun{f: f, w: fault.NewWatch(from), p: p, cancel: cancel}
	cfg.OnComplete = func(c engine.Completion) { fr.w.Observe(c.Sent, c.Done, c.Status, c.Class) }
	if cfg.Requests > 0 {
		fr.w.StartCounted(ctx, f.Specs, cfg.Requests, fr.act)
	} else {
		fr.w.Start(ctx, f.Specs, cfg.Duration, fr.act)
	}
	return fr
}

// act performs one fault: kill-sut here, the others through the workload's Act.
func (fr *faultRun) act(ctx context.Context, s fault.Spec, hit func()) error {
	if s.Kind != fault.KillSUT {
		if fr.f.Act == nil {
			return fmt.Errorf("fault %s: this run has no way to perform it", s)
		}
		return fr.f.Act(ctx, s, hit)
	}
	killed := func() {
		hit()
		if fr.f.Killed != nil {
			fr.f.Killed()
		}
	}
	if err := fr.p.KillAndRestart(ctx, killed); err != nil {
		return fmt.Errorf("kill-sut: the impl did not start again: %w", err)
	}
	return nil
}

// wait drops the faults that have not struck (the load has ended) and waits until the actions
// of those that have are over (the impl whole again, the store back, the relay healed).
func (fr *faultRun) wait() error {
	if fr == nil {
		return nil
	}
	fr.cancel()
	return fr.w.Wait()
}

// stop drops the faults that have not struck and waits for those striking.
func (fr *faultRun) stop() {
	if fr != nil {
		fr.cancel()
		_ = fr.w.Wait()
	}
}

// record puts the faults section in rec, over its measured phase.
func (fr *faultRun) record(rec *result.Record) {
	if fr != nil && rec != nil {
		_ = fr.w.Wait()
		rec.SetSection(fault.Key, fr.w.Record(rec.Duration.Std()))
	}
}
