package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/suite"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/scenarios"
)

func init() { subcommands = append(subcommands, newRunCmd) }

type runFlags struct {
	results, implsDir, stateDir string
	quiet, full                 bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [SCENARIO.yaml...]",
		Short: "Run the main job: a scenario suite (the quick suite by default), with a summary and an HTML report",
		Long: `Run scenario suites. With no argument, the quick suite (scenarios/quick.yaml, embedded in the
binary): the built-in hello server at peak throughput (closed loop) and at half of it (open loop,
latency from intended start), and the bus with a sync and an async consumer on embedded NATS and
SQLite, every command accounted for; two repeats of each, interleaved.

A scenario's impls come from impls/ (see 'iobench impls'), in any language, several at once:
impls: [go-hello, python-asyncio-hello], or NAME:VARIANT for one variant. Each impl is installed
and checked once per suite, started with the IOBENCH_* environment, and its own CPU and peak
memory are recorded beside the throughput.

Sizes: each seed's scenario keeps the seed's shape at a short default size that finishes in a few
minutes here; --full runs the seed's own sizes (the scenario's full: block: counts, durations,
repeats).

Each run's text block is printed as it ends, then a summary table (median and spread over the
repeats). Results go to --results/<timestamp>-<suite>/: one JSON record per run, summary.md and a
self-contained report.html. A run that fails is reported as failed and the suite goes on; the exit
code is then 1.`,
		Example: `  iobench run
  iobench run scenarios/hello-langs.yaml
  iobench run scenarios/seed4-hello.yaml scenarios/seed1-bus.yaml
  iobench run --full scenarios/seed2-publish.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error { return runSuites(cmd, args, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.results, "results", "results", "directory under which each suite's results go")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.BoolVar(&f.full, "full", false, "the seed's own sizes (each scenario's full: block) instead of the short default")
	fs.StringVar(&f.implsDir, "impls-dir", "", "the impls folder (default $IOBENCH_IMPLS_DIR or ./impls)")
	fs.StringVar(&f.stateDir, "state-dir", "", "where impls are installed (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
	return cmd
}

func runSuites(cmd *cobra.Command, args []string, f runFlags) error {
	if f.implsDir == "" {
		f.implsDir = impl.DefaultRoot()
	}
	suites, err := loadSuites(args, f.implsDir, f.full)
	if err != nil {
		return err
	}
	bin, err := suite.Executable()
	if err != nil {
		return err
	}
	stamp := time.Now().Format("20060102-150405")
	var failures []string
	for _, s := range suites {
		dir := filepath.Join(f.results, stamp+"-"+s.Name)
		if err := result.CheckWritable(filepath.Join(dir, "summary.md")); err != nil {
			return cli.BadInput("--results: %v", err)
		}
		failed, err := runSuite(cmd, s, dir, bin, f)
		if err != nil {
			return err
		}
		failures = append(failures, failed...)
		if cmd.Context().Err() != nil {
			return cli.Interrupted(fmt.Errorf("interrupted; the runs that ended are in %s", dir))
		}
	}
	if len(failures) > 0 {
		return cli.Failed(fmt.Errorf("%d run(s) failed: %s", len(failures), strings.Join(failures, "; ")))
	}
	return nil
}

// loadSuites reads the scenario files, or the embedded quick suite when there are none, against
// the impls found under implsDir. Every problem of every file is reported at once.
func loadSuites(args []string, implsDir string, full bool) ([]*scenario.Suite, error) {
	entries, err := impl.List(implsDir)
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	known := workload.Known(impl.WorkloadRefs(entries))
	known.Full = full
	if len(args) == 0 {
		data, err := scenarios.Files.ReadFile(scenarios.Quick)
		if err != nil {
			return nil, err
		}
		s, err := scenario.Parse(scenarios.Quick, data, known)
		if err != nil {
			return nil, cli.BadInput("%v", err)
		}
		return []*scenario.Suite{s}, nil
	}
	var out []*scenario.Suite
	var errs []error
	for _, path := range args {
		s, err := scenario.Load(path, known)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, cli.BadInput("%v", errors.Join(errs...))
	}
	return out, nil
}

// runSuite runs one suite, prints each run and the summary, writes the records and reports, and
// returns the labels of the runs that failed.
func runSuite(cmd *cobra.Command, s *scenario.Suite, dir, bin string, f runFlags) ([]string, error) {
	w := cmd.OutOrStdout()
	prog := cli.NewProgress(cmd.ErrOrStderr(), f.quiet)
	var label string
	opts := suite.Options{
		Binary:   bin,
		Impls:    f.implsDir,
		StateDir: f.stateDir,
		Command:  os.Args,
		OnStart: func(i, n int, r scenario.Run) {
			label = fmt.Sprintf("[%d/%d] %s", i+1, n, r.Label())
			prog.Line("%s: starting", label)
		},
		OnInstall: func(name string) { prog.Line("%s: installing and checking impl %s", label, name) },
		OnSecond: func(snap engine.Snapshot) {
			prog.Line("%s: ", label)
			prog.Second(snap)
		},
	}
	if prog.On() {
		opts.Progress = cmd.ErrOrStderr()
	}
	fmt.Fprintf(w, "Suite %s: %d runs, results in %s\n", s.Name, len(s.Runs), dir)
	start := time.Now()
	outs := suite.Run(cmd.Context(), s, opts)
	prog.Done()
	var recs []*result.Record
	var failures []string
	for _, o := range outs {
		fmt.Fprintf(w, "\n== %s ==\n", o.Run.Label())
		if o.Record != nil {
			recs = append(recs, o.Record)
			if err := result.Save(filepath.Join(dir, o.Run.ID+".json"), o.Record, w); err != nil {
				return nil, cli.BadInput("%v", err)
			}
			if err := runText(w, o.Record); err != nil {
				return nil, err
			}
		}
		if o.Err != nil {
			fmt.Fprintf(w, "FAILED: %s\n", cli.OneLine(o.Err.Error()))
			failures = append(failures, o.Run.ID+": "+cli.OneLine(o.Err.Error()))
		}
	}
	return failures, writeSummary(w, s, dir, recs, time.Since(start))
}

func writeSummary(w io.Writer, s *scenario.Suite, dir string, recs []*result.Record, took time.Duration) error {
	fmt.Fprintf(w, "\nSummary of suite %s (%d runs in %s):\n", s.Name, len(recs), took.Round(time.Second))
	if len(recs) == 0 {
		return nil
	}
	if err := report.SummaryText(w, recs); err != nil {
		return err
	}
	files, err := report.WriteFiles(dir, recs, report.HTMLOptions{Title: "iobench: " + s.Name})
	if err != nil {
		return cli.BadInput("%v", err)
	}
	fmt.Fprintf(w, "\nReport: %s (%d bytes); summary: %s\n", files.HTML, files.HTMLSize, files.Markdown)
	return nil
}
