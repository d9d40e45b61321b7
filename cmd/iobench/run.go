package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/suite"
	"github.com/iobench/iobench/internal/workload/runone"
	"github.com/iobench/iobench/scenarios"
)

func init() {
	subcommands = append(subcommands, newRunCmd)
	runone.RunSuite = runShipped // `iobench publish seed2`: the workload's command runs its scenario here
}

type runFlags struct {
	results, implsDir, stateDir string
	quiet, full                 bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [SCENARIO.yaml... | seeds]",
		Short: "Run the main job: a scenario suite (the quick suite by default), with a summary and an HTML report",
		Long: `Run scenario suites. With no argument, the quick suite (scenarios/quick.yaml, embedded in the
binary): one short run of every workload that measures an impl (hello at its peak and at half of
it, the bus, publish, fanout, cachequeue), each with its Go impl and one in Python or Node, on the
services the machine has (the bus falls back to embedded NATS and SQLite).

A run whose impl's runtime (python3, node) or service (RabbitMQ, Redis, ...) is not installed is
skipped with one line naming what to install, and the suite goes on; skipped runs are not
failures.

A scenario's impls come from impls/ (see 'iobench impls'), in any language, several at once:
impls: [go-hello, python-asyncio-hello], or NAME:VARIANT for one variant. Each impl is installed
and checked once per suite, started with the IOBENCH_* environment, and its own CPU and peak
memory are recorded beside the throughput.

'iobench run seeds' runs the five seeds' scenarios (scenarios/seed1-bus.yaml to seed5-fanout.yaml,
embedded) as one suite, and several files given together run as one suite too: the services they
share started once, one results folder, one report, with a section per seed (its question, its
figures beside ours, the tables that show its flaw, and its claims computed from the records).
Every impl's prerequisites are checked before the first run; an impl that misses one is skipped
with one line saying what to install, and the suite goes on.

Sizes: each seed's scenario keeps the seed's shape at a short default size that finishes in a few
minutes here; --full runs the seed's own sizes (the scenario's full: block: counts, durations,
repeats).

Each run's text block is printed as it ends, then a summary table (median and spread over the
repeats). Results go to --results/<timestamp>-<suite>/: one JSON record per run, summary.md and a
self-contained report.html. A run that fails is reported as failed and the suite goes on; the exit
code is then 1.`,
		Example: `  iobench run
  iobench run seeds
  iobench run scenarios/hello-langs.yaml
  iobench run scenarios/seed4-hello.yaml scenarios/seed1-bus.yaml
  iobench run --full scenarios/seed2-publish.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error { return runSuites(cmd, args, f) },
	}
	f.add(cmd.Flags())
	return cmd
}

// add registers the flags of a suite's run.
func (f *runFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.results, "results", "results", "directory under which each suite's results go")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.BoolVar(&f.full, "full", false, "the seed's own sizes (each scenario's full: block) instead of the short default")
	fs.StringVar(&f.implsDir, "impls-dir", "", impl.RootFlagHelp)
	fs.StringVar(&f.stateDir, "state-dir", "", "where impls are installed (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
}

func runSuites(cmd *cobra.Command, args []string, f runFlags) error {
	if f.implsDir == "" {
		f.implsDir = impl.DefaultRoot()
	}
	s, err := loadSuite(args, f.implsDir, f.full)
	if err != nil {
		return err
	}
	bin, err := suite.Executable()
	if err != nil {
		return err
	}
	dir := filepath.Join(f.results, time.Now().Format("20060102-150405")+"-"+s.Name)
	if err := result.CheckWritable(filepath.Join(dir, "summary.md")); err != nil {
		return cli.BadInput("--results: %v", err)
	}
	failures, err := runSuite(cmd, s, dir, bin, f)
	if err != nil {
		return err
	}
	if cmd.Context().Err() != nil {
		return cli.Interrupted(fmt.Errorf("interrupted; the runs that ended are in %s", dir))
	}
	if len(failures) > 0 {
		return cli.Failed(fmt.Errorf("%d run(s) failed: %s", len(failures), strings.Join(failures, "; ")))
	}
	return nil
}

// runShipped is runone.RunSuite: `iobench run`'s flags on fs, and the embedded scenario file name
// run with them as `iobench run` runs it.
func runShipped(fs *pflag.FlagSet) func(*cobra.Command, string) error {
	f := new(runFlags)
	f.add(fs)
	return func(cmd *cobra.Command, name string) error { return runSuites(cmd, []string{shippedArg + name}, *f) }
}

// shippedArg before the name of a scenario file embedded in the binary makes an argument of
// loadSuite that file (`iobench publish seed2`: scenarios/seed2-publish.yaml, wherever iobench
// runs).
const shippedArg = "shipped:"

// seedsArg is the argument of `iobench run seeds`: the five seeds' embedded scenario files.
const seedsArg = "seeds"

// loadSuite reads the scenario files (seedsArg standing for the seeds' embedded ones), or the
// embedded quick suite when there are none, against the impls found under implsDir, and merges
// them into one suite. Every problem of every file is reported at once.
func loadSuite(args []string, implsDir string, full bool) (*scenario.Suite, error) {
	known, err := suite.Known(implsDir)
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	known.Full = full
	quick := len(args) == 0
	if quick {
		args = []string{scenarios.Quick}
	}
	var out []*scenario.Suite
	var names []string
	var errs []error
	for _, arg := range args {
		var loaded []*scenario.Suite
		if name, ok := strings.CutPrefix(arg, shippedArg); ok {
			loaded, err = embedded(name, known)
			arg = name
		} else if arg == seedsArg || quick {
			loaded, err = embedded(arg, known)
		} else if err = scenarios.Missing(arg, seedsArg); err == nil {
			var s *scenario.Suite
			if s, err = scenario.Load(arg, known); err == nil {
				loaded = []*scenario.Suite{s}
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, loaded...)
		names = append(names, strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg)))
	}
	if len(errs) > 0 {
		return nil, cli.BadInput("%v", errors.Join(errs...))
	}
	s, err := scenario.Merge(strings.Join(names, "+"), out...)
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	return s, nil
}

// embedded parses the embedded quick suite, or the seeds' files for seedsArg.
func embedded(arg string, known scenario.Known) ([]*scenario.Suite, error) {
	files := []string{arg}
	if arg == seedsArg {
		files = scenarios.Seeds
	}
	var out []*scenario.Suite
	var errs []error
	for _, name := range files {
		data, err := scenarios.Files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s, err := scenario.Parse("scenarios/"+name, data, known)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}
