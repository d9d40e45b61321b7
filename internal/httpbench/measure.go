package httpbench

import (
	"context"
	"os"
	"runtime"
	"time"

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
}

// Measure runs cfg and returns its record, with the generator's cost and the warnings.
func Measure(ctx context.Context, cfg engine.Config, m Meta) (*result.Record, error) {
	before, t0 := procstat.Self(), time.Now()
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	wall := time.Since(t0)
	used := procstat.Self().Sub(before)
	rec := newRecord(m, cfg)
	res.Fill(rec, cfg)
	rec.Processes = append(rec.Processes, Process("iobench", "generator", os.Getpid(), used, wall))
	rec.Warnings = engine.Warnings(rec, engine.Usage{CPU: used.CPU(), Wall: wall, Threads: cfg.Threads, Cores: runtime.NumCPU()})
	return rec, nil
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
	if cfg.Requests > 0 {
		params["requests"] = cfg.Requests
	} else {
		params["duration"] = cfg.Duration.String()
	}
	if cfg.Rate > 0 {
		params["rate"] = cfg.Rate
	}
	if cfg.Warmup > 0 {
		params["warmup"] = cfg.Warmup.String()
	}
	for k, v := range m.Params {
		params[k] = v
	}
	return &result.Record{
		SchemaVersion: result.SchemaVersion,
		Workload:      w,
		Impl:          m.Impl,
		Mode:          m.Mode,
		Target:        "http://" + cfg.Target.Host + cfg.Target.RequestURI,
		Parameters:    params,
		Command:       m.Command,
		Environment:   result.CaptureEnvironment(),
	}
}

// Process turns a usage into a record entry; CPU percent is of one core over wall.
func Process(name, role string, pid int, u procstat.Usage, wall time.Duration) result.Process {
	p := result.Process{
		Name:      name,
		Role:      role,
		PID:       pid,
		CPUUser:   round3(u.User.Seconds()),
		CPUSystem: round3(u.System.Seconds()),
		PeakRSS:   u.PeakRSS,
	}
	if wall > 0 {
		p.CPUPercent = round1(100 * u.CPU().Seconds() / wall.Seconds())
	}
	return p
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
