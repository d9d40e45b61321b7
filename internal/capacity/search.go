package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// Settings are a search's choices; the defaults are Defaults'.
type Settings struct {
	SLOs      []SLO   `json:"-"`
	StartRate float64 `json:"start_rate"` // the first step's rate
	Ceiling   float64 `json:"ceiling"`    // the highest rate tried
	Floor     float64 `json:"floor"`      // the lowest rate a failing first step steps down to
	Precision float64 `json:"precision"`  // bisect until (high - low) / low is at most this
	MaxSteps  int     `json:"max_steps"`
	Factor    float64 `json:"factor"`        // the climb's and the step down's
	Confirm   int     `json:"confirmations"` // runs at the answer that must all pass
	// StepDuration is each step's measured window, Warmup the load before it (recorded here;
	// the StepFunc applies them).
	StepDuration result.Duration `json:"step_duration"`
	Warmup       result.Duration `json:"warmup"`
	// Connections is -c when ConnectionsGiven (the user chose it: a connection-starved step then
	// stops the search instead of raising it); otherwise each step has enough for its rate at the
	// tightest SLO latency by Little's law (DefaultConnections of the step's rate), at least
	// Connections, and more after a starved step.
	Connections      int  `json:"connections"`
	ConnectionsGiven bool `json:"connections_given"`
	// MaxConnections, when above 0, caps the connections a step is given without -c (the
	// open-file limit).
	MaxConnections int `json:"max_connections,omitempty"`
	// Poisson says the steps' arrivals are Poisson (--arrivals poisson): each step is held to
	// the rate its schedule offered, and the answer says so.
	Poisson bool `json:"poisson,omitempty"`
	// Rest, when set, is called after a failing step, to let the service drain what it queued
	// before the next step.
	Rest func(ctx context.Context, failed StepResult) `json:"-"`
}

// Defaults returns the documented defaults of --find-max.
func Defaults() Settings {
	return Settings{StartRate: 1000, Ceiling: 100_000, Floor: 10, Precision: 0.02, MaxSteps: 40, Factor: 2, Confirm: 3,
		StepDuration: result.Duration(5 * time.Second), Warmup: result.Duration(time.Second)}
}

// Validate reports the first setting that cannot work, as one line.
func (s Settings) Validate() error {
	switch {
	case len(s.SLOs) == 0:
		return errors.New("--find-max needs at least one --slo, e.g. --slo 'p99<20ms'")
	case s.StartRate <= 0 || s.Floor <= 0 || s.Ceiling <= 0:
		return errors.New("--start-rate, --floor and --ceiling must be positive rates in req/s")
	case s.Floor > s.StartRate || s.StartRate > s.Ceiling:
		return fmt.Errorf("--floor %g ≤ --start-rate %g ≤ --ceiling %g must hold", s.Floor, s.StartRate, s.Ceiling)
	case s.Precision <= 0 || s.Precision >= 1:
		return fmt.Errorf("--precision %g: give a fraction above 0 and below 1, e.g. 0.02 for 2%%", s.Precision)
	case s.MaxSteps < 1:
		return errors.New("--max-steps must be at least 1")
	case s.StepDuration <= 0:
		return errors.New("--step-duration must be positive, e.g. 5s")
	}
	return nil
}

// StepFunc runs one step: an open loop at rate over conns connections, measured after a
// warm-up. An error ends the search (the step could not run at all).
type StepFunc func(ctx context.Context, rate float64, conns int) (StepResult, error)

// errStop ends a search early: the record says why.
var errStop = errors.New("search stopped")

// searcher is one search's state.
type searcher struct {
	s        Settings
	step     StepFunc
	progress func(StepRecord)
	rec      *Record
	conns    int // -c given, or the least a step has (raised by a starved step)
	begun    time.Time
}

// Search finds the highest rate that passes (see the package doc) and returns its record;
// progress, when set, sees every step as it ends. A cancelled ctx returns the bracket so far,
// marked Interrupted; an error is a step that could not run.
func Search(ctx context.Context, s Settings, step StepFunc, progress func(StepRecord)) (*Record, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Factor <= 1 {
		s.Factor = 2
	}
	r := &searcher{s: s, step: step, progress: progress, conns: s.Connections, begun: time.Now(),
		rec: &Record{Search: s, Steps: []StepRecord{}}}
	for _, o := range s.SLOs {
		r.rec.SLO = append(r.rec.SLO, o.String())
	}
	err := r.search(ctx)
	r.rec.Elapsed = result.Duration(time.Since(r.begun))
	switch {
	case err == nil || errors.Is(err, errStop):
		return r.rec, nil
	case ctx.Err() != nil:
		r.rec.Interrupted, r.rec.Bound = true, ""
		return r.rec, nil
	}
	return r.rec, err
}

// search climbs, or steps down when the first step fails, then bisects and confirms.
func (r *searcher) search(ctx context.Context) error {
	rate := r.s.StartRate
	for {
		pass, err := r.run(ctx, rate, "climb")
		if err != nil {
			return err
		}
		if !pass {
			break
		}
		if rate >= r.s.Ceiling {
			r.answer(r.s.Ceiling, Ceiling, fmt.Sprintf("no step failed up to the ceiling, %s req/s: raise --ceiling", units.RateText(r.s.Ceiling, "")))
			return nil
		}
		rate = min(rate*r.s.Factor, r.s.Ceiling)
	}
	if r.rec.Bracket.Low == 0 {
		if err := r.stepDown(ctx, rate); err != nil {
			return err
		}
	}
	return r.bisectAndConfirm(ctx)
}

// Ceiling is the bound of a search that reached the ceiling without a failing step.
const Ceiling = "ceiling"

// stepDown divides a failing first rate until a step passes; below the floor there is no answer.
func (r *searcher) stepDown(ctx context.Context, rate float64) error {
	for {
		rate /= r.s.Factor
		if rate < r.s.Floor {
			r.rec.Bound = Service
			r.rec.Reason = fmt.Sprintf("every step down to the floor, %s req/s, failed: lower --floor, or check the service", units.RateText(r.s.Floor, ""))
			return errStop
		}
		pass, err := r.run(ctx, rate, "down")
		if err != nil || pass {
			return err
		}
	}
}

// bisectAndConfirm narrows the bracket to the precision, then confirms its low end; a failed
// confirmation makes that rate the new high end and the highest lower pass the new low end.
func (r *searcher) bisectAndConfirm(ctx context.Context) error {
	for {
		b := &r.rec.Bracket
		for (b.High-b.Low)/b.Low > r.s.Precision {
			if _, err := r.run(ctx, (b.Low+b.High)/2, "bisect"); err != nil {
				return err
			}
		}
		ok, err := r.confirm(ctx)
		if err != nil {
			return err
		}
		if ok {
			r.answer(b.Low, Service, "")
			return nil
		}
		r.rec.Confirmations.Failed++
		b.High, b.Low = b.Low, r.lowerPass(b.Low)
		if b.Low > 0 {
			continue
		}
		if err := r.stepDown(ctx, b.High); err != nil {
			return err
		}
	}
}

// confirm runs the answer Confirm more times; it reports whether all passed.
func (r *searcher) confirm(ctx context.Context) (bool, error) {
	rate := r.rec.Bracket.Low
	r.rec.Confirmations.Runs, r.rec.Confirmations.Passed = 0, 0
	for range r.s.Confirm {
		pass, err := r.run(ctx, rate, "confirm")
		if err != nil {
			return false, err
		}
		r.rec.Confirmations.Runs++
		if !pass {
			return false, nil
		}
		r.rec.Confirmations.Passed++
	}
	return true, nil
}

// lowerPass returns the highest rate below rate that passed, 0 when none did.
func (r *searcher) lowerPass(rate float64) float64 {
	var best float64
	for _, s := range r.rec.Steps {
		if s.Verdict == Pass && s.TargetRate < rate && s.TargetRate > best {
			best = s.TargetRate
		}
	}
	return best
}

func (r *searcher) answer(rate float64, bound, reason string) {
	r.rec.MaxSustainableRate = &rate
	r.rec.Bound, r.rec.Reason = bound, reason
}

// run runs one step at rate and moves the bracket; it reports whether the step passed. A step
// bound by the generator or starved of connections is run once more (after a rest, or with more
// connections when -c was not given); if it is again, it stops the search with errStop.
func (r *searcher) run(ctx context.Context, rate float64, phase string) (bool, error) {
	verdict, res, err := r.once(ctx, rate, phase)
	if err != nil {
		return false, err
	}
	if r.retry(ctx, verdict, res, rate) {
		if verdict, res, err = r.once(ctx, rate, "retry"); err != nil {
			return false, err
		}
	}
	b := &r.rec.Bracket
	switch verdict {
	case Pass:
		if phase != "confirm" && rate > b.Low {
			b.Low = rate
		}
		return true, nil
	case Generator:
		r.rec.Bound = Generator
		r.rec.Reason = r.lastWhy()
		return false, errStop
	case Connections:
		r.rec.Bound, r.rec.NeededConnections = Connections, neededConnections(res, r.connsFor(rate))
		r.rec.Reason = r.lastWhy()
		return false, errStop
	}
	if phase != "confirm" && (b.High == 0 || rate < b.High) {
		b.High = rate
	}
	if r.s.Rest != nil {
		r.s.Rest(ctx, res)
	}
	return false, nil
}

// retry reports whether a step judged verdict is run once more, and readies it: a
// connection-starved one with the connections it needed (unless -c was given), a generator-bound
// one after the service's rest. The generator can fall behind for a moment (a burst of answers
// from a service still draining the step before); one that cannot keep up falls behind again.
func (r *searcher) retry(ctx context.Context, verdict string, res StepResult, rate float64) bool {
	switch {
	case verdict == Connections && !r.s.ConnectionsGiven:
		r.conns = neededConnections(res, r.connsFor(rate))
		return true
	case verdict == Generator:
		if r.s.Rest != nil {
			r.s.Rest(ctx, res)
		}
		return true
	}
	return false
}

// once runs and judges one step, and records it.
func (r *searcher) once(ctx context.Context, rate float64, phase string) (string, StepResult, error) {
	if len(r.rec.Steps) >= r.s.MaxSteps {
		r.rec.Reason = fmt.Sprintf("stopped after %d steps (--max-steps) before an answer", r.s.MaxSteps)
		return "", StepResult{}, errStop
	}
	conns := r.connsFor(rate)
	res, err := r.step(ctx, rate, conns)
	if ctx.Err() != nil {
		return "", res, ctx.Err()
	}
	if err != nil {
		return "", res, err
	}
	if res.Connections == 0 {
		res.Connections = conns
	}
	verdict, why := judge(r.s.SLOs, res)
	if res.Stopped != "" {
		why += " (" + res.Stopped + ")"
	}
	st := newStepRecord(len(r.rec.Steps)+1, phase, conns, res, verdict, why)
	r.rec.Steps = append(r.rec.Steps, st)
	if r.progress != nil {
		r.progress(st)
	}
	return verdict, res, nil
}

// connsFor is the connections of a step at rate: -c when given, else enough for the rate at the
// SLO's latency (Little's law, doubled), at least what a starved step raised it to.
func (r *searcher) connsFor(rate float64) int {
	if r.s.ConnectionsGiven {
		return r.conns
	}
	n := max(r.conns, DefaultConnections(rate, r.s.SLOs))
	if r.s.MaxConnections > 0 {
		n = min(n, r.s.MaxConnections)
	}
	return n
}

func (r *searcher) lastWhy() string { return r.rec.Steps[len(r.rec.Steps)-1].Why }
