package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/suite"
)

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
		OnInstall: func(name string) { prog.Line("%s: installing and checking impl %s", orLabel(label), name) },
		// A skip shows on the progress line as it is found; its one line is written with the
		// others when the suite ends (writeSkips), grouped by reason.
		OnSkip: func(what string, err error) {
			prog.Line("%s: skipping %s: %s", orLabel(label), what, cli.OneLine(err.Error()))
		},
		OnSecond: func(snap engine.Snapshot) {
			prog.Line("%s: ", label)
			prog.Second(snap)
		},
	}
	if prog.On() {
		opts.Progress = cmd.ErrOrStderr()
	}
	t := &tally{w: w, dir: dir}
	opts.OnDone = func(o suite.Outcome) {
		prog.Done()
		t.add(o)
	}
	fmt.Fprintf(w, "Suite %s: %d runs, results in %s\n", s.Name, len(s.Runs), dir)
	start := time.Now()
	outs := suite.Run(cmd.Context(), s, opts)
	prog.Done()
	if t.err != nil {
		return nil, t.err
	}
	failures := append(t.failures, writeSkips(w, outs, len(t.recs) == 0)...)
	return failures, writeSummary(w, s, dir, t.recs, time.Since(start))
}

// tally prints each run as it ends and keeps what the summary needs; the first error saving a
// record stops the saving and is returned when the suite ends.
type tally struct {
	w        io.Writer
	dir      string
	recs     []*result.Record
	failures []string
	err      error
}

func (t *tally) add(o suite.Outcome) {
	if o.Skip != nil || t.err != nil { // skips are written together at the end (writeSkips)
		return
	}
	fmt.Fprintf(t.w, "\n== %s ==\n", o.Run.Label())
	if o.Record != nil {
		t.recs = append(t.recs, o.Record)
		if err := result.Save(filepath.Join(t.dir, o.Run.ID+".json"), o.Record, t.w); err != nil {
			t.err = cli.BadInput("%v", err)
			return
		}
		if err := runText(t.w, o.Record); err != nil {
			t.err = err
			return
		}
	}
	if why := failed(o); why != "" {
		fmt.Fprintf(t.w, "FAILED: %s\n", why)
		t.failures = append(t.failures, o.Run.ID+": "+why)
	}
}

// failed says why a run failed, "" when it did not: it measured nothing and returned an error,
// or its record failed its own check (report.Status, the one verdict every reader of the record
// reaches) and its variant expects no such failure. Errors alone, such as a few connection
// resets, fail no run: they are counted in its record.
func failed(o suite.Outcome) string {
	switch {
	case o.Record == nil && o.Err != nil:
		return cli.OneLine(o.Err.Error())
	case o.Record != nil && report.Status(o.Record) == report.StatusFailed:
		return "not verified: " + cli.OneLine(report.Why(o.Record))
	}
	return ""
}

// orLabel is the progress line's prefix before the first run has started.
func orLabel(label string) string {
	if label == "" {
		return "prerequisites"
	}
	return label
}

// writeSkips writes the skip lines of outs and returns them as failures when nothing was
// measured: a suite that measured nothing did not do its job.
func writeSkips(w io.Writer, outs []suite.Outcome, none bool) []string {
	skips := skipLines(outs)
	if len(skips) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", strings.Join(skips, "\n"))
	var failures []string
	for _, o := range outs {
		if none && o.Skip != nil {
			failures = append(failures, o.Run.ID+": skipped, not installed here")
		}
	}
	return failures
}

// skipLines returns one line per reason runs were skipped (suite.Outcome.Skip: something they
// need is not installed here): the workloads and impls it kept from running, how many runs, and
// the reason, which names what to install.
func skipLines(outs []suite.Outcome) []string {
	var reasons []string
	whom := map[string][]string{}
	runs := map[string]int{}
	for _, o := range outs {
		if o.Skip == nil {
			continue
		}
		why := cli.OneLine(fail.Text(o.Skip))
		if runs[why] == 0 {
			reasons = append(reasons, why)
		}
		runs[why]++
		if w := o.Run.Workload + " " + o.Run.Impl; !slices.Contains(whom[why], w) {
			whom[why] = append(whom[why], w)
		}
	}
	lines := make([]string, len(reasons))
	for i, why := range reasons {
		lines[i] = fmt.Sprintf("skipped %s (%d run(s)): %s", strings.Join(whom[why], ", "), runs[why], why)
	}
	return lines
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
