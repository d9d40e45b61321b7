package httpcmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/result"
)

// findMaxFlags are --find-max and its settings.
type findMaxFlags struct {
	on       bool
	slos     []string
	settings capacity.Settings
	step     time.Duration
}

// register adds the --find-max flags to fs, with their defaults (capacity.Defaults).
func (m *findMaxFlags) register(fs *pflag.FlagSet) {
	d := capacity.Defaults()
	m.settings = d
	fs.BoolVar(&m.on, "find-max", false, "find the highest rate the service sustains within every --slo: open-loop steps climb (x2), bisect, confirm 3 times")
	fs.StringArrayVar(&m.slos, "slo", nil, "with --find-max: an objective, p50|p99|p99.9|max<DURATION or errors<PCT%, e.g. 'p99<20ms' (repeatable: all must hold)")
	fs.Float64Var(&m.settings.StartRate, "start-rate", d.StartRate, "with --find-max: the first step's rate, req/s")
	cli.DurationVarP(fs, &m.step, "step-duration", "", d.StepDuration.Std(), "with --find-max: each step's measured window, after a warm-up (--warmup; 1s when not given)")
	fs.Float64Var(&m.settings.Ceiling, "ceiling", d.Ceiling, "with --find-max: the highest rate to try, req/s")
	fs.Float64Var(&m.settings.Floor, "floor", d.Floor, "with --find-max: the lowest rate a failing first step steps down to, req/s")
	fs.IntVar(&m.settings.MaxSteps, "max-steps", d.MaxSteps, "with --find-max: stop after this many steps")
	fs.Float64Var(&m.settings.Precision, "precision", d.Precision, "with --find-max: bisect until the bracket is this narrow, relative (0.02 = 2%)")
}

// searchOnly are the flags that mean nothing without --find-max.
var searchOnly = []string{"slo", "start-rate", "step-duration", "ceiling", "floor", "max-steps", "precision"}

// notWithSearch are the flags --find-max chooses itself or cannot honour.
var notWithSearch = []string{"rate", "requests", "duration", "agent", "agents-local", "start-at", "run", "collector"}

// prepare checks the --find-max flags against the others and completes the settings: the SLOs,
// the step's window and warm-up, and -c (Little's law at the ceiling when not given).
func (m *findMaxFlags) prepare(fs *pflag.FlagSet, f *httpFlags) error {
	if !m.on {
		for _, name := range searchOnly {
			if fs.Changed(name) {
				return cli.BadInput("--%s is a setting of --find-max; add --find-max or drop it", name)
			}
		}
		return nil
	}
	for _, name := range notWithSearch {
		if fs.Changed(name) {
			return cli.BadInput("%s does not go with --find-max, which chooses each step's rate and duration itself; drop it", flagName(fs, name))
		}
	}
	s := &m.settings
	for _, text := range m.slos {
		o, err := capacity.ParseSLO(text)
		if err != nil {
			return cli.BadInput("%v", err)
		}
		s.SLOs = append(s.SLOs, o)
	}
	s.StepDuration = result.Duration(m.step)
	if fs.Changed("warmup") {
		s.Warmup = result.Duration(f.opts.Warmup)
	}
	if err := s.Validate(); err != nil {
		return cli.BadInput("%v", err)
	}
	s.ConnectionsGiven = fs.Changed("connections")
	if s.ConnectionsGiven {
		s.Connections = f.opts.Connections
	} else { // each step has its own (capacity.DefaultConnections), as many as the open files hold
		f.opts.Connections = capacity.DefaultConnections(s.StartRate, s.SLOs)
		s.MaxConnections = httpbench.MaxConnections()
	}
	f.opts.Duration, f.opts.Rate, f.opts.RateSet = s.StepDuration.Std(), s.StartRate, false
	return nil
}

// runFindMax runs the search: a progress line per step on stderr (unless --quiet), the one
// result line on stdout (always), the record to --json.
func runFindMax(cmd *cobra.Command, f *httpFlags) error {
	cfg, err := f.opts.Config()
	if err != nil {
		return cli.BadInput("%v", err)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	ctx := cmd.Context()
	if err := httpbench.Probe(ctx, cfg.Target, cfg.TLS, cfg.Timeout); err != nil {
		return cli.BadInput("%v", err)
	}
	progress := func(s capacity.StepRecord) {
		if !f.quiet {
			fmt.Fprintln(cmd.ErrOrStderr(), capacity.Progress(s))
		}
	}
	rec, err := httpbench.FindMax(ctx, cfg, f.find.settings, httpbench.Meta{Command: os.Args, Generator: f.image}, progress)
	if err != nil {
		return cli.RunError(err)
	}
	out := cmd.OutOrStdout()
	if f.jsonPath == "-" {
		out = cmd.ErrOrStderr()
	}
	sec := capacity.Section(rec)
	fmt.Fprintln(out, sec.Line())
	if f.jsonPath != "" {
		if err := result.Save(f.jsonPath, rec, cmd.OutOrStdout()); err != nil {
			return cli.Failed(err)
		}
	}
	if sec.Interrupted {
		return cli.Interrupted(errors.New("interrupted; the bracket so far is above" + savedNote(f.jsonPath)))
	}
	return nil
}

// flagName is "-R (--rate)" for a flag with a shorthand, else "--name".
func flagName(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil && f.Shorthand != "" {
		return "-" + f.Shorthand + " (--" + name + ")"
	}
	return "--" + name
}
