package httpbench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/cpuprobe"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
)

// maxRest bounds the pause after a failing step (see rest).
const maxRest = 10 * time.Second

// FindMax runs a capacity search (package capacity) on cfg's target: each step an open loop of
// cfg at the step's rate and connections, s.Warmup then s.StepDuration. The record is the one
// of the step at the answer (else of the highest passing step, else of the last), with the
// search in its capacity section, the generator's cost and how busy the machine was over that
// step, and the machine's speed before the search (cpuprobe); progress sees
// each step as it ends. m.Result, when set, sees that step's engine result once the search has
// ended, its Answered and Unanswered summed over every step (what a service counted over the
// whole search lies between them).
func FindMax(ctx context.Context, cfg engine.Config, s capacity.Settings, m Meta, progress func(capacity.StepRecord)) (*result.Record, error) {
	probe := cpuprobe.Run()
	cfg.Warmup, cfg.Duration, cfg.Requests, cfg.Drain, cfg.OnSecond = s.Warmup.Std(), s.StepDuration.Std(), 0, false, nil
	st := &stepper{base: cfg, slos: s.SLOs}
	s.Rest, s.Poisson = rest, cfg.Arrivals == engine.ArrivalsPoisson
	sec, err := capacity.Search(ctx, s, st.step, progress)
	if err != nil {
		return nil, err
	}
	i := st.representative(sec)
	if i < 0 {
		return nil, ctx.Err()
	}
	res, at, cost := st.results[i], st.configs[i], st.costs[i]
	if m.Result != nil {
		m.Result(st.summed(res))
	}
	rec := newRecord(m, at)
	if cfg.Arrivals == engine.ArrivalsPoisson {
		rec.Parameters["seed"] = int64(cfg.Seed) // the search's: step i draws from seed + i
	}
	res.Fill(rec, at)
	rec.CPUProbe, rec.MachineCPU = cpuprobe.Micros(probe), cost.busy
	rec.Processes = append(rec.Processes, result.NewProcess(m.generatorName(), "generator", os.Getpid(), cost.used, cost.wall))
	rec.Parameters["engine"] = res.Engine
	rec.Parameters["find_max"] = true
	rec.Parameters["slo"] = strings.Join(sec.SLO, " ")
	delete(rec.Parameters, "rate") // the step's, an outcome of the search: in its section
	if !s.ConnectionsGiven {
		delete(rec.Parameters, "connections")
	}
	rec.Case = strings.TrimSpace(rec.Case + " find-max")
	rec.Interrupted = sec.Interrupted
	rec.SetSection(capacity.Key, sec)
	if res.EngineNote != "" {
		rec.Warnings = append(rec.Warnings, res.EngineNote)
	}
	return rec, nil
}

// stepper runs the steps of one search and keeps each one's engine result and configuration, in
// the order of the search's step records.
type stepper struct {
	base    engine.Config
	slos    []capacity.SLO
	results []*engine.Result
	configs []engine.Config
	costs   []stepCost
}

// stepCost is the generator's cost over a step's window, and how busy the machine was.
type stepCost struct {
	used procstat.Usage
	busy float64
	wall time.Duration
}

// step is the search's StepFunc: one open-loop run, measured over its window. Its connections
// open before its first request (see connectTime), so that the service accepts them unloaded.
func (st *stepper) step(ctx context.Context, rate float64, conns int) (capacity.StepResult, error) {
	cfg := st.base
	cfg.Rate, cfg.Connections = rate, conns
	cfg.Seed += uint64(len(st.results)) // Poisson arrivals: each step draws its own, so a confirmation is not a replay
	cfg.Threads = min(cfg.Threads, conns)
	run := cfg
	open := connectTime(conns)
	run.Phase, run.Warmup = cfg.Phase+open, cfg.Warmup+open
	stepCtx, stop := context.WithCancel(ctx)
	defer stop()
	var stopped string
	run.OnSecond = func(s engine.Snapshot) {
		if stopped != "" {
			return
		}
		if why, ok := capacity.Spent(st.slos, progress(s, rate, cfg.Duration)); ok {
			stopped = fmt.Sprintf("stopped after %s of %s: %s", s.Elapsed.Round(time.Second), cfg.Duration, why)
			stop()
		}
	}
	meters := startMeters(cfg)
	res, err := engine.Run(stepCtx, run)
	if err != nil {
		return capacity.StepResult{}, err
	}
	used, busy, wall := meters.take()
	st.results, st.configs = append(st.results, res), append(st.configs, cfg)
	st.costs = append(st.costs, stepCost{used, busy, wall})
	r := stepResult(res, rate, conns, used, wall, meters.schedDelay())
	if cfg.Arrivals == engine.ArrivalsPoisson && cfg.Duration > 0 {
		r.Offered = float64(res.Scheduled) / cfg.Duration.Seconds()
	}
	r.Stopped = stopped
	return r, nil
}

// progress is what a step's snapshot says of it so far, for capacity.Spent.
func progress(s engine.Snapshot, rate float64, window time.Duration) capacity.SoFar {
	p := capacity.SoFar{Planned: int64(rate * window.Seconds()), Answered: s.Completed, Errors: s.Errors}
	if s.LatencyAt != nil {
		p.LatencyAt = func(q float64) time.Duration { return time.Duration(s.LatencyAt(q) * float64(time.Microsecond)) }
	}
	return p
}

// connectTime is the time a step gives its conns connections to open before its schedule
// begins: 100 µs each, from 100 ms to 1 s. Opened under the step's load instead, they cost the
// service most when it has least to spare: under 45,000 req/s a Python asyncio server had
// accepted 2,765 of 5,212 after 6 s.
func connectTime(conns int) time.Duration {
	return min(max(time.Duration(conns)*100*time.Microsecond, 100*time.Millisecond), time.Second)
}

// stepResult is what the search needs of a step's engine result and the generator's cost.
func stepResult(res *engine.Result, rate float64, conns int, used procstat.Usage, wall time.Duration, delay time.Duration) capacity.StepResult {
	var failed int64
	for _, n := range res.Errors {
		failed += n
	}
	r := capacity.StepResult{Target: rate, Requests: res.Succeeded + failed, Errors: failed,
		Latency: latencies(res.Latency), Service: latencies(res.Uncorrected), RunQueueDelay: delay,
		LateSends: res.LateFree, ConnWaits: res.ConnWaits, Connections: conns}
	if secs := res.Elapsed.Seconds(); secs > 0 { // what came in the window, as the server kept pace
		r.Achieved = float64(res.Succeeded+res.Early) / secs
	}
	if len(used.Threads) > 0 && wall > 0 {
		r.GeneratorCPU = used.Threads[0].Seconds() / wall.Seconds()
	}
	return r
}

// latencies are a histogram's percentiles (it keeps microseconds).
func latencies(h interface {
	Quantile(float64) float64
	Max() float64
	Mean() float64
}) capacity.Latencies {
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	if h == nil {
		return capacity.Latencies{}
	}
	return capacity.Latencies{P50: us(h.Quantile(50)), P99: us(h.Quantile(99)), P999: us(h.Quantile(99.9)), Max: us(h.Max()), Mean: us(h.Mean())}
}

// representative returns the index of the step the record is filled from: the last step at the
// answer, else at the highest passing rate, else the last step; -1 when none ran.
func (st *stepper) representative(sec *capacity.Record) int {
	want := sec.Bracket.Low
	if sec.MaxSustainableRate != nil {
		want = *sec.MaxSustainableRate
	}
	for i := len(sec.Steps) - 1; i >= 0 && i < len(st.results); i-- {
		if s := sec.Steps[i]; s.Verdict == capacity.Pass && s.TargetRate == want {
			return i
		}
	}
	return len(st.results) - 1
}

// summed is a copy of res with Answered and Unanswered summed over every step of the search.
func (st *stepper) summed(res *engine.Result) *engine.Result {
	sum := *res
	sum.Answered, sum.Unanswered = 0, 0
	for _, r := range st.results {
		sum.Answered += r.Answered
		sum.Unanswered += r.Unanswered
	}
	return &sum
}

// rest pauses after a failing step for as long as the slowest answer the service gave from the
// send (at most maxRest): about what it still had queued when the step ended, so that the next
// step does not begin with the last one's backlog.
func rest(ctx context.Context, failed capacity.StepResult) {
	t := time.NewTimer(min(failed.Service.Max, maxRest))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// schedSnapshot reads the schedstat of the generator's threads.
func schedSnapshot() map[int]procstat.Sched { return procstat.SchedThreads(os.Getpid()) }
