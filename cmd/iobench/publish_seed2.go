package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/publish"
	"github.com/iobench/iobench/internal/workload/runone"
)

func newSeed2Cmd() *cobra.Command {
	var b brokerFlags
	var scale float64
	var quick bool
	var only []string
	var jsonDir string
	cmd := &cobra.Command{
		Use:   "seed2",
		Short: "Run seed 2's whole comparison (Python pika/aio-pika variants and Go presets), counted at the broker",
		Long: `Reproduce seed 2 (normtomlins/rabbitmq-performance) in one command: every Python variant of
impls/python/pika-publisher (single thread persistent with confirms, single optimized, 8 threads,
4 processes), the async counterpart impls/python/aio-pika-publisher, and the Go presets go-single,
go-pool and go-ultra, one after the other on the same RabbitMQ, with the seed's message counts.
Prints one table in the seed's shape: what the seed reported beside what the broker accepted
(sustained and peak second), and each publisher's own figure for contrast. The Python impls are
installed into virtualenvs under the state directory on first use (pip, from PyPI).`,
		Example: `  iobench publish seed2
  iobench publish seed2 --quick                 # a tenth of the messages
  iobench publish seed2 --only processes,go-ultra --json-dir results/seed2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			stderr := cmd.ErrOrStderr()
			log, err := b.logger(stderr)
			if err != nil {
				return err
			}
			if quick && !cmd.Flags().Changed("scale") {
				scale = 0.1
			}
			if scale <= 0 || scale > 100 {
				return cli.BadInput("--scale %v: use a factor above 0 and at most 100 (1 = the seed's counts)", scale)
			}
			known := map[string]bool{}
			for _, r := range publish.Seed2Rows() {
				known[r.Variant] = true
			}
			needs := map[string]bool{}
			for _, r := range publish.Seed2Rows() {
				if len(only) == 0 || inList(only, r.Variant) {
					if r.Lang == "Python" {
						needs[r.Impl] = true
					}
				}
			}
			for _, o := range only {
				if !known[o] {
					return cli.BadInput("--only %q: not a row; use variants and presets: single-persistent, single, threads, processes, async, async-confirm, go-single, go-pool, go-ultra", o)
				}
			}
			if jsonDir != "" {
				if err := result.CheckWritable(filepath.Join(jsonDir, "probe.json")); err != nil {
					return cli.BadInput("--json-dir: %v", err)
				}
			}
			prog := cli.NewProgress(stderr, false)
			insts := map[string]*impl.Installation{}
			for name := range needs {
				prog.Line("installing %s...", name)
				inst, err := runone.Install(ctx, b.root(), name, b.stateDir, log)
				if err != nil {
					prog.Done()
					return err
				}
				insts[name] = inst
			}
			prog.Line("starting rabbitmq...")
			br, err := b.openBroker(ctx, log)
			prog.Done()
			if err != nil {
				return err
			}
			defer br.close(ctx, log)
			var saveErr error
			rows := publish.Seed2(ctx, publish.Seed2Config{
				URL: br.url, Installations: insts, Scale: scale, Only: only,
				Command: os.Args, Versions: br.versions(), BrokerRoots: br.roots(), Log: log,
				OnRow: func(r publish.Seed2Row) {
					prog.Done()
					status := "ok"
					if r.Err != nil {
						status = cli.OneLine(r.Err.Error())
					}
					fmt.Fprintf(stderr, "seed2: %s %s (%s): %s\n", r.Lang, r.Name, r.Variant, status)
					if jsonDir != "" && r.Record != nil {
						if err := result.Save(filepath.Join(jsonDir, "seed2-"+r.Variant+".json"), r.Record, io.Discard); err != nil && saveErr == nil {
							saveErr = err
						}
					}
				},
			})
			fmt.Fprintf(cmd.OutOrStdout(), "Seed 2 (normtomlins/rabbitmq-performance) reproduced: %s, %d cores; rates counted at the broker\n\n",
				br.label(), result.CaptureEnvironment().Cores)
			if err := publish.WriteSeed2Table(cmd.OutOrStdout(), rows); err != nil {
				return err
			}
			if saveErr != nil {
				return cli.Failed(saveErr)
			}
			for _, r := range rows {
				if r.Err != nil {
					return cli.RunError(fmt.Errorf("%s: %w", r.Variant, r.Err))
				}
			}
			if ctx.Err() != nil {
				return cli.Interrupted(fmt.Errorf("interrupted; the table covers the rows that ran"))
			}
			return nil
		},
	}
	b.add(cmd)
	fs := cmd.Flags()
	fs.Float64Var(&scale, "scale", 1, "multiply every row's message count (1 = the seed's)")
	fs.BoolVar(&quick, "quick", false, "a tenth of the seed's messages (--scale 0.1)")
	fs.StringSliceVar(&only, "only", nil, "run only these rows (variant or preset names, comma-separated)")
	fs.StringVar(&jsonDir, "json-dir", "", "write each row's result record into this folder")
	return cmd
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
