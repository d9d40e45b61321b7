package fanout

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/runone"
)

// flags are `iobench fanout`'s: one run's options and the impl to run.
type flags struct {
	opts Options
	runone.Flags
}

// newCommand is `iobench fanout` (workload.Workload.Command): one run of an impl, as a one-run
// suite would measure it.
func newCommand() *cobra.Command {
	f := flags{opts: Options{Route: "/sync"}}
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Seed 5: a service calling an upstream with a sync and an async client; did the call and the work overlap?",
		Long: `Start iobench's upstream ({"foo":"bar"} after --delay, every call counted) and the impl with
IOBENCH_UPSTREAM_URL, then load one route as ab does (-c connections, -n requests; or -d, and -R
for an open loop). Each request should call the upstream once and do --work of local work:
  /sync           call, then work
  /async          the seed's shape: start the call, work, then wait (whatever the runtime makes of it)
  /async-overlap  the call and the work at once
The run drains at the end, then the upstream's count must equal the responses (exactly one call
per request; else exit 1). Every impl reports its handling time in Server-Timing: app;dur=MS,
read from each response under load; the overlap ratio (delay + work) / median handling time is
about 1 when nothing overlapped and about 2 when the call and the work fully did. The median
and the tail of the latency are reported apart.
--fault kill-sut@50% kills the impl and starts it again; down-upstream@40%+2s cuts its upstream
connections through a relay for 2 s. Every 2xx answer must still have made its call
(docs/FAULTS.md).`,
		Example: `  iobench fanout --impl go-fanout --route /sync
  iobench fanout --impl python-fanout --route /async -c 5 -n 100
  iobench fanout --impl node-fanout --route /async-overlap -c 10 -d 10s --json fanout.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCommand(cmd, &f) },
	}
	fs := cmd.Flags()
	o := &f.opts
	f.Flags.Add(fs, "go-fanout")
	fs.StringVar(&o.Route, "route", o.Route, "/sync, /async or /async-overlap")
	fs.IntVarP(&o.Connections, "connections", "c", 10, "connections, each waiting for its response (ab's -c)")
	fs.Int64VarP(&o.Requests, "requests", "n", 300, "requests in all after the warm-up (ab's -n)")
	cli.DurationVarP(fs, &o.Duration, "duration", "d", 0, "measure for this long instead of -n")
	fs.Float64VarP(&o.Rate, "rate", "R", 0, "open loop: total requests per second (with -d)")
	fs.IntVarP(&o.Threads, "threads", "t", 0, "generator threads (default min(2, connections))")
	cli.DurationVarP(fs, &o.Warmup, "warmup", "", time.Second, "load sent before measuring, not counted")
	cli.DurationVarP(fs, &o.Timeout, "timeout", "", 2*time.Second, "a slower response is a timeout error")
	cli.DurationVarP(fs, &o.Delay, "delay", "", DefaultDelay, "the upstream's delay before it answers")
	cli.DurationVarP(fs, &o.Work, "work", "", DefaultWork, "the impl's work per request")
	fault.AddFlag(fs, &o.Fault)
	fs.StringArrayVar(&o.Inject, "inject", nil, "delay the upstream's answers to the impl through a relay, e.g. upstream:latency=5ms,jitter=200us")
	return cmd
}

func runCommand(cmd *cobra.Command, f *flags) error {
	fs := cmd.Flags()
	if fs.Changed("duration") && !fs.Changed("requests") {
		f.opts.Requests = 0
	}
	return f.Run(cmd, Name, f.opts.Check,
		func(ctx context.Context, t workload.Target, onSecond func(engine.Snapshot)) (*result.Record, error) {
			f.opts.OnSecond, f.opts.Command = onSecond, os.Args
			return RunOne(ctx, t, f.opts)
		}, Text)
}
