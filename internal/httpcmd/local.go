package httpcmd

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/report/textblock"
)

// LocalRun is an --agents-local run as the http command hands it over.
type LocalRun struct {
	Agents  int
	Args    []string // the command line as typed, program name first
	JSON    string   // --json of the merged record
	Text    textblock.TextOptions
	Warmup  time.Duration
	Measure time.Duration // the measured phase, 0 with a request count
	Out     io.Writer
	Err     io.Writer
}

// Local runs --agents-local: N agent processes on loopback, their records collected and merged.
// iobench sets it (it has the collector); it stays nil in the lean image.
var Local func(ctx context.Context, run LocalRun) error

func runLocal(cmd *cobra.Command, f *httpFlags, cfg engine.Config) error {
	if Local == nil {
		return cli.BadInput("--agents-local runs in iobench, which has the collector; run iobench http --agents-local, not %s", f.image)
	}
	run := LocalRun{Agents: f.agent.Local, Args: os.Args, JSON: f.jsonPath, Text: textblock.TextOptions{Latency: f.latency},
		Warmup: cfg.Warmup, Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr()}
	if cfg.Requests == 0 {
		run.Measure = cfg.Duration
	}
	return Local(cmd.Context(), run)
}
