package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/report/export"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

func init() { subcommands = append(subcommands, newReportCmd) }

type reportFlags struct {
	out       string
	title     string
	quiet     bool
	format    string
	histogram string
	series    bool
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RESULT.json|DIR...",
		Short: "Regenerate the text, summary.md and report.html from saved JSON records",
		Long: `Read result records (files, or every *.json of a results directory) and regenerate what a run
shows: each run's text block and the summary table on stdout, then summary.md (one line per group of repeats, and the
async/sync ratios) and report.html (one self-contained page with charts) in --out, which defaults
to the directory of the records when they all share one.

--format prints one format to stdout and writes no files: hgrm is a record's latency histogram as
HdrHistogram's percentile distribution in milliseconds (the text wrk2 prints and HdrHistogram's
plotter draws; --histogram uncorrected or lag for an open loop's others), csv a record's
per-second series (a --find-max record's steps, one row each, unless --series), openmetrics the figures of every record given, as OpenMetrics text for
Prometheus or a Pushgateway.`,
		Example: `  iobench report results/20261121-153208-quick
  iobench report --out /tmp/r results/a/hello-closed.json results/b/hello-closed.json
  iobench report --format hgrm results/a/hello-open-1.json > hello.hgrm
  iobench report --format csv results/a/hello-open-1.json
  iobench report --format openmetrics results/20261121-153208-quick`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.BadInput("report needs result records: iobench report results/<run-dir> or FILE.json...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("format") || cmd.Flags().Changed("histogram") || cmd.Flags().Changed("series") {
				return runExport(cmd, args, f)
			}
			return runReport(cmd, args, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.format, "format", "", "print one format to stdout instead: hgrm (one record's latency percentiles, for HdrHistogram's plotter), csv (one record's per-second series) or openmetrics (any records)")
	fs.StringVar(&f.histogram, "histogram", string(export.Latency), "with --format hgrm: which histogram, latency, uncorrected or lag (the last two of an open loop)")
	fs.BoolVar(&f.series, "series", false, "with --format csv: the per-second series even of a record whose section is a table of its own (a --find-max record's steps)")
	fs.StringVar(&f.out, "out", "", "directory for summary.md and report.html (default: the records' directory)")
	fs.StringVar(&f.title, "title", "", "title of the HTML report (default: iobench report)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only where the files went, not each run's text")
	return cmd
}

func runReport(cmd *cobra.Command, args []string, f reportFlags) error {
	recs, files, err := readRecords(args)
	if err != nil {
		return err
	}
	if err := report.CheckPool(recs); err != nil {
		return cli.BadInput("%v", err)
	}
	out := f.out
	if out == "" {
		if out = commonDir(files); out == "" {
			return cli.BadInput("the records come from several directories; choose where the report goes with --out DIR")
		}
	}
	if err := result.CheckWritable(filepath.Join(out, "summary.md")); err != nil {
		return cli.BadInput("--out: %v", err)
	}
	w := cmd.OutOrStdout()
	if !f.quiet {
		for i, r := range recs {
			fmt.Fprintf(w, "== %s (%s) ==\n", report.KeyOf(r), files[i])
			if err := runText(w, r); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
	}
	if !f.quiet {
		if err := report.SummaryText(w, recs); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	paths, err := report.WriteFiles(out, recs, report.HTMLOptions{Title: f.title, Source: out})
	if err != nil {
		return cli.BadInput("%v", err)
	}
	fmt.Fprintf(w, "Report of %d runs: %s, %s (%d bytes)\n", len(recs), paths.Markdown, paths.HTML, paths.HTMLSize)
	return nil
}

// runText writes a run's text block, its workload's (wrk's layout for the HTTP workloads, the
// bus's own summary); a record without one has only its line in the summary.
func runText(w io.Writer, r *result.Record) error {
	if ok, err := workload.Text(w, r); ok || err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s, see the summary\n", report.KeyOf(r), report.RateText(r.Throughput.Mean, r.Throughput.Unit))
	return nil
}

// readRecords loads every record named by args (files, or the *.json of directories), in the
// order given and, within a directory, by name; a file named twice (or in a directory given
// twice) is read once. Unreadable files and records of another schema version are bad input
// (exit 2).
func readRecords(args []string) ([]*result.Record, []string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, p)
		}
	}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, nil, cli.BadInput("cannot read %s: %v", a, err)
		}
		if !st.IsDir() {
			add(a)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(a, "*.json"))
		if len(found) == 0 {
			return nil, nil, cli.BadInput("%s holds no result records (*.json); give a results directory or record files", a)
		}
		sort.Strings(found)
		for _, f := range found {
			add(f)
		}
	}
	recs := make([]*result.Record, 0, len(files))
	for _, p := range files {
		r, err := result.Load(p)
		if err != nil {
			return nil, nil, cli.BadInput("%v", err)
		}
		recs = append(recs, r)
	}
	return recs, files, nil
}

// commonDir returns the directory every file is in, or "" when they differ.
func commonDir(files []string) string {
	dir := ""
	for i, f := range files {
		d := filepath.Clean(filepath.Dir(f))
		if i == 0 {
			dir = d
		} else if d != dir {
			return ""
		}
	}
	return dir
}
