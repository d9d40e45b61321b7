package cachequeue

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

// flags are `iobench cachequeue`'s: one run's options and the impl to run.
type flags struct {
	opts Options
	runone.Flags
}

// newCommand is `iobench cachequeue` (workload.Workload.Command): one route of an impl, as a
// one-run suite would measure it.
func newCommand() *cobra.Command {
	f := flags{opts: Options{Route: "/cache/redis"}}
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Seed 3: cache and queue drivers behind HTTP, every increment and push counted in the store",
		Long: `Start the impl with the addresses of its stores (Redis, Memcached: the environment's, those of
'iobench services up', or started for the run; a ZeroMQ endpoint of its own) and load one route as
wrk does (-c, -t, -d; -R for an open loop):
  /cache/{fake,memcached,redis,predis}   increment the counter "visits" and answer it
  /queue/{fake,zmq,redis,predis}         push "visit"
The run drains at the end; then the store must have counted every response iobench saw, warm-up
and drain included (a request that got no answer may or may not have counted), and a fake route
must have moved nothing; else exit 1 with the counts. With no consumer, iobench binds a PULL
socket on the ZeroMQ endpoint after the load and drains what the app's sockets queued.
--consumers runs the impl's consumer of a queue route beside it (php-cachequeue: the seed's
zmqserver.php and redispopper.php), started before the load and stopped once it has run dry:
the store's change plus what it received must match, and its drain rate and lag are shown.
--fault kill-sut@50% kills the app (PHP-FPM's master and workers; nginx stays up) and starts it
again; restart-redis@50% or restart-memcached@50% restarts the route's store (a variant that
opts in). The count must still match, 2xx answers alone counted as answered (docs/FAULTS.md).`,
		Example: `  iobench cachequeue --impl php-cachequeue --route /cache/redis
  iobench cachequeue --impl php-cachequeue --route /queue/zmq -c 20 -d 10s --json zmq.json
  iobench cachequeue --impl php-cachequeue --route /queue/zmq --consumers`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCommand(cmd, &f) },
	}
	fs := cmd.Flags()
	o := &f.opts
	f.Flags.Add(fs, "php-cachequeue")
	fs.StringVar(&o.Route, "route", o.Route, "the route to load, e.g. /cache/redis or /queue/zmq")
	fs.IntVarP(&o.Connections, "connections", "c", 20, "connections kept open (the seed's wrk -c20)")
	fs.IntVarP(&o.Threads, "threads", "t", 0, "generator threads (default min(2, connections))")
	cli.DurationVarP(fs, &o.Duration, "duration", "d", 10*time.Second, "measured duration")
	fs.Float64VarP(&o.Rate, "rate", "R", 0, "open loop: total requests per second")
	cli.DurationVarP(fs, &o.Warmup, "warmup", "", time.Second, "load sent before measuring (counted in the store too)")
	cli.DurationVarP(fs, &o.Timeout, "timeout", "", 2*time.Second, "a slower response is a timeout error")
	fault.AddFlag(fs, &o.Fault)
	fs.StringArrayVar(&o.Inject, "inject", nil, "delay the route's store's answers to the app through a relay, e.g. redis:latency=1ms,jitter=100us (redis or memcached, or store)")
	fs.BoolVar(&o.Consumers, "consumers", false, "run the impl's consumer of the route beside it (its manifest's consumers), counting what it receives")
	return cmd
}

func runCommand(cmd *cobra.Command, f *flags) error {
	return f.Run(cmd, Name, f.opts.Check,
		func(ctx context.Context, t workload.Target, onSecond func(engine.Snapshot)) (*result.Record, error) {
			f.opts.OnSecond, f.opts.Command = onSecond, os.Args
			return RunOne(ctx, t, f.opts)
		}, Text)
}
