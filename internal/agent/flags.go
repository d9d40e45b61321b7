package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/result"
)

// Flags are the http command's agent flags.
type Flags struct {
	Agent     string // --agent I/N
	StartAt   string // --start-at TIME
	Run       string // --run ID
	Collector string // --collector URL
	Local     int    // --agents-local N

	spec  *Spec
	start time.Time
}

// Register adds the agent flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Agent, "agent", "", "run agent I's share (0-based) of a run split over N agents: --agent I/N")
	fs.StringVar(&f.StartAt, "start-at", "", "begin measuring at this wall-clock instant, after the warm-up (RFC 3339, @UNIXSECONDS or +10s)")
	fs.StringVar(&f.Run, "run", "", "the id shared by the agents of one run (default: the --start-at time)")
	fs.StringVar(&f.Collector, "collector", "", "post the agent's record to this iobench collect URL")
	fs.IntVar(&f.Local, "agents-local", 0, "run N agents as processes on this machine, collect and merge their records")
}

// Configure checks the agent flags and turns cfg, the whole run, into this agent's share of it.
func (f *Flags) Configure(cfg *engine.Config, now time.Time) error {
	if f.Local != 0 && f.Agent != "" {
		return errors.New("--agents-local starts the agents itself; leave out --agent")
	}
	if f.Local < 0 || f.Local == 1 {
		return fmt.Errorf("--agents-local %d: give 2 agents or more", f.Local)
	}
	if f.Local > 0 {
		if f.Run != "" || f.Collector != "" || f.StartAt != "" {
			return errors.New("--agents-local chooses the run, the collector and the start itself; leave out --run, --collector and --start-at")
		}
		return nil
	}
	if f.StartAt != "" {
		t, err := ParseStartAt(f.StartAt, now)
		if err != nil {
			return err
		}
		if err := CheckStart(t, cfg.Warmup, now); err != nil {
			return err
		}
		f.start, cfg.StartAt = t, t
	}
	if f.Agent == "" {
		if f.Run != "" || f.Collector != "" {
			return errors.New("--run and --collector belong to an agent; add --agent I/N")
		}
		return nil
	}
	s, err := Parse(f.Agent)
	if err != nil {
		return err
	}
	if s.Count > 1 && f.StartAt == "" {
		return fmt.Errorf("--agent %s: agents of one run need one --start-at instant, e.g. --start-at +10s", f.Agent)
	}
	l, err := s.Split(Whole{Connections: cfg.Connections, Threads: cfg.Threads, Requests: cfg.Requests, Rate: cfg.Rate})
	if err != nil {
		return err
	}
	cfg.Connections, cfg.Threads, cfg.Requests, cfg.Rate, cfg.Phase = l.Connections, l.Threads, l.Requests, l.Rate, l.Phase
	cfg.Stream = l.Stream
	if f.Run == "" && !f.start.IsZero() {
		f.Run = f.start.UTC().Format(time.RFC3339Nano)
	} else if f.Run == "" {
		f.Run = fmt.Sprintf("%x", now.UnixNano())
	}
	f.spec = &s
	return nil
}

// Stamp marks rec as the agent's, when it runs as one.
func (f *Flags) Stamp(rec *result.Record) {
	if f.spec != nil {
		f.spec.Stamp(rec, f.Run, f.start)
	}
}

// Send posts rec to the collector, when one was given.
func (f *Flags) Send(ctx context.Context, rec *result.Record) error {
	if f.spec == nil || f.Collector == "" {
		return nil
	}
	return Send(ctx, f.Collector, rec, 10*time.Second)
}
