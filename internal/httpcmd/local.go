package httpcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/textblock"
)

// LocalRun is an --agents-local run as the http command hands it over.
type LocalRun struct {
	Agents  int
	Args    []string // an agent's command line, from "http" on, without --agent and what the run chooses
	Command []string // the command line as typed, for the merged record
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
	args := append(append([]string{"http"}, AgentArgs(cmd.Flags())...), f.opts.URL)
	run := LocalRun{Agents: f.agent.Local, Args: args, Command: os.Args, JSON: f.jsonPath, Text: textblock.TextOptions{Latency: f.latency},
		Warmup: cfg.Warmup, Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr()}
	if cfg.Requests == 0 {
		run.Measure = cfg.Duration
	}
	return Local(cmd.Context(), run)
}

// AgentArgs returns the flags of fs the user set, as an agent takes them: without those that
// belong to the whole run (--agents-local, --json, --quiet, --cpuprofile) or that the run sets
// for each agent (--agent, --start-at, --run, --collector). A flag set that holds the http
// command's flags among others (iobench k8s job) gives only those: http's own are named by New.
func AgentArgs(fs *pflag.FlagSet) []string {
	own := New("http", "").Flags()
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		switch f.Name {
		case "agents-local", "json", "quiet", "cpuprofile", "agent", "start-at", "run", "collector":
			return
		}
		if !f.Changed || own.Lookup(f.Name) == nil {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	if a := fs.Lookup("arrivals"); a != nil && a.Value.String() == engine.ArrivalsPoisson && !fs.Changed("seed") {
		out = append(out, fmt.Sprintf("--seed=%d", httpbench.NewSeed())) // one seed for the run, a stream per agent
	}
	return out
}
