package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/suite"
	"github.com/iobench/iobench/internal/units"
)

func init() { subcommands = append(subcommands, newRunCmd) }

type runFlags struct {
	duration time.Duration
	warmup   time.Duration
	conns    int
	threads  int
	results  string
	quiet    bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the main job: the built-in hello server at peak throughput, then at half of it for latency",
		Long: `Run the main job on the embedded defaults: starts 'iobench serve hello' as a child process on a
free port of 127.0.0.1, measures it closed-loop for peak throughput, then open-loop at half that
rate for latency (from intended start, so stalls show), prints both blocks and a summary, and
writes one JSON record per phase under --results.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMain(cmd, f) },
	}
	fs := cmd.Flags()
	durationVarP(fs, &f.duration, "duration", "d", 5*time.Second, "measured duration of each phase")
	durationVarP(fs, &f.warmup, "warmup", "", time.Second, "warm-up before each phase, not counted")
	fs.IntVarP(&f.conns, "connections", "c", 100, "connections")
	fs.IntVarP(&f.threads, "threads", "t", 1, "generator threads (the server needs the other core)")
	fs.StringVar(&f.results, "results", "results", "directory for the JSON records")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	return cmd
}

func runMain(cmd *cobra.Command, f runFlags) error {
	if f.duration <= 0 {
		return badInput("--duration must be positive, e.g. 5s")
	}
	dir := filepath.Join(f.results, time.Now().Format("20060102-150405")+"-quick")
	if err := result.CheckWritable(filepath.Join(dir, "probe.json")); err != nil {
		return badInput("--results: %v", err)
	}
	bin, err := suite.Executable()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	prog := newProgress(cmd.ErrOrStderr(), f.quiet)
	opts := suite.HelloOptions{
		Binary: bin, Duration: f.duration, Warmup: f.warmup, Connections: f.conns, Threads: f.threads,
		Command: os.Args,
		OnSecond: func(phase string, s engine.Snapshot) {
			prog.line("%s: ", phase)
			prog.second(s)
		},
	}
	fmt.Fprintf(out, "== hello: iobench serve hello, closed loop for peak throughput, then open loop at half of it ==\n")
	closed, open, err := suite.Hello(cmd.Context(), opts)
	prog.done()
	for _, rec := range []*result.Record{closed, open} {
		if rec == nil {
			continue
		}
		fmt.Fprintln(out)
		report.HTTP(out, rec, report.TextOptions{Latency: true})
		if err := result.Save(filepath.Join(dir, fmt.Sprintf("hello-%s.json", rec.LoadModel)), rec, out); err != nil {
			return err
		}
	}
	if err != nil {
		return failed(err)
	}
	summary(out, closed, open, dir)
	if closed.Interrupted || (open != nil && open.Interrupted) {
		return &exitError{code: 130, err: fmt.Errorf("interrupted; partial results are in %s", dir)}
	}
	return nil
}

func summary(w io.Writer, closed, open *result.Record, dir string) {
	fmt.Fprintf(w, "\nSummary: go-hello peak %s req/s (closed loop, %d conns); at %s req/s open loop: p50 %s, p99 %s, p99.9 %s, max %s; records in %s\n",
		units.Rate(closed.Throughput.Mean), closed.Parameters["connections"],
		units.Rate(open.Throughput.TargetRate),
		units.Micros(open.Latency.At(50)), units.Micros(open.Latency.At(99)),
		units.Micros(open.Latency.At(99.9)), units.Micros(open.Latency.Max), dir)
}
