package httpbench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/cpuprobe"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
)

// Meta describes a run for its record.
type Meta struct {
	Workload string // "http" unless a workload drives the engine
	Impl     string
	Mode     string
	Command  []string
	Params   map[string]any
	// Generator names the generator's executable in the record: "iobench" (the default) or the
	// lean image "iobench-http".
	Generator string
	// Result, when set, sees the engine's result before Measure returns the record, for what a
	// workload takes from it beyond the record (Timing, Answered).
	Result func(*engine.Result)
}

// Measure runs cfg and returns its record, with the generator's cost over the measured phase
// (its busiest threads too), how busy the machine was and how fast just before (cpuprobe), and
// the warnings.
func Measure(ctx context.Context, cfg engine.Config, m Meta) (*result.Record, error) {
	probe := cpuprobe.Run()
	meters := startMeters(cfg)
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	used, busy, wall := meters.take()
	rec := newRecord(m, cfg)
	res.Fill(rec, cfg)
	rec.Parameters["engine"] = res.Engine
	if res.Coalesced {
		rec.Parameters["wakeups"] = "coalesced"
	}
	if m.Result != nil {
		m.Result(res)
	}
	rec.Processes = append(rec.Processes, result.NewProcess(m.generatorName(), "generator", os.Getpid(), used, wall))
	rec.MachineCPU, rec.CPUProbe = busy, cpuprobe.Micros(probe)
	rec.Warnings = engine.Warnings(rec, engine.Usage{CPU: used.CPU(), Wall: wall, Threads: cfg.Threads, Cores: runtime.NumCPU(), Planned: plannedDuration(cfg)})
	if res.EngineNote != "" {
		rec.Warnings = append(rec.Warnings, res.EngineNote)
	}
	return rec, nil
}

// generatorName is the generator's name in the record: m.Generator, "iobench" by default.
func (m Meta) generatorName() string {
	if m.Generator == "" {
		return "iobench"
	}
	return m.Generator
}

func newRecord(m Meta, cfg engine.Config) *result.Record {
	w := m.Workload
	if w == "" {
		w = "http"
	}
	params := map[string]any{
		"threads":     cfg.Threads,
		"connections": cfg.Connections,
		"timeout":     cfg.Timeout.String(),
		"keepalive":   cfg.KeepAlive,
	}
	if len(cfg.Expect.Status) > 0 {
		params["expect_status"] = cfg.Expect.Status
	}
	if cfg.Requests > 0 {
		params["requests"] = cfg.Requests
	} else {
		params["duration"] = cfg.Duration.String()
	}
	if cfg.Rate > 0 {
		params["rate"] = cfg.Rate
	}
	if cfg.Arrivals == engine.ArrivalsPoisson { // even, the default, is left out, as before it could be chosen
		params["arrivals"], params["seed"] = cfg.Arrivals, int64(cfg.Seed)
	}
	if cfg.Warmup > 0 {
		params["warmup"] = cfg.Warmup.String()
	}
	if cfg.Pipeline > 1 {
		params["pipeline"] = cfg.Pipeline
	}
	if cfg.HTTP2 {
		params["protocol"], params["streams"] = cfg.H2Protocol(), max(1, cfg.Streams)
	}
	for k, v := range m.Params {
		if d, ok := v.(time.Duration); ok {
			v = d.String() // readable in the record, as the flags are written
		}
		params[k] = v
	}
	return &result.Record{
		SchemaVersion: result.SchemaVersion,
		Workload:      w,
		Impl:          m.Impl,
		Mode:          m.Mode,
		Case:          caseOf(cfg),
		Target:        cfg.Target.URL(),
		Parameters:    params,
		Command:       m.Command,
		Environment:   result.CaptureEnvironment(),
	}
}

func plannedDuration(cfg engine.Config) time.Duration {
	if cfg.Requests > 0 {
		return 0
	}
	return cfg.Duration
}

// meters measure the generator and the machine over a run's measured phase: they start again
// when the warm-up ends, as an impl's cost does (web.cost), so that the generator's CPU per
// request divides the measured phase's CPU by the measured phase's requests.
type meters struct {
	mu      sync.Mutex
	self    *procstat.SelfMeter
	machine *procstat.MachineMeter
	from    time.Time
	warm    *time.Timer
	sched   map[int]procstat.Sched // the generator's threads at from (schedDelay)
}

func startMeters(cfg engine.Config) *meters {
	m := &meters{}
	m.restart()
	if after := cfg.UntilMeasured(); after > 0 {
		m.warm = time.AfterFunc(after, m.restart)
	}
	return m
}

func (m *meters) restart() {
	self, machine, sched, now := procstat.NewSelfMeter(), procstat.NewMachineMeter(), schedSnapshot(), time.Now()
	m.mu.Lock()
	m.self, m.machine, m.sched, m.from = self, machine, sched, now
	m.mu.Unlock()
}

// take returns the generator's usage, how busy the machine was, and the wall time, since the
// measured phase began (since the start when the run ended in its warm-up).
func (m *meters) take() (procstat.Usage, float64, time.Duration) {
	if m.warm != nil {
		m.warm.Stop()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.self.Usage(), m.machine.Busy(), time.Since(m.from)
}

// schedDelay is how long the generator's threads waited on a run queue to get a CPU since the
// measured phase began, on average per time they were scheduled.
func (m *meters) schedDelay() time.Duration {
	now := schedSnapshot()
	m.mu.Lock()
	defer m.mu.Unlock()
	return procstat.SchedSince(m.sched, now).Delay()
}

// caseOf sets apart, for grouping and compare, the runs whose wire differs from one request at a
// time over HTTP/1.1 ("pipeline 16", "h2c streams 100", "h2 streams 100"), or whose arrivals are
// Poisson ("poisson", "pipeline 16 poisson"). Runs differing in it are never taken for repeats.
func caseOf(cfg engine.Config) string {
	var c string
	if cfg.HTTP2 {
		c = fmt.Sprintf("%s streams %d", cfg.H2Protocol(), max(1, cfg.Streams))
	} else if cfg.Pipeline > 1 {
		c = fmt.Sprintf("pipeline %d", cfg.Pipeline)
	}
	if cfg.Arrivals == engine.ArrivalsPoisson {
		c = strings.TrimSpace(c + " poisson")
	}
	return c
}
