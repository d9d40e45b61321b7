package main

import (
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/cachequeue"
)

func init() { subcommands = append(subcommands, newCachequeueCmd) }

type cachequeueFlags struct {
	opts               cachequeue.Options
	implName, jsonPath string
	implsDir, stateDir string
	quiet              bool
}

func newCachequeueCmd() *cobra.Command {
	f := cachequeueFlags{opts: cachequeue.Options{Route: "/cache/redis"}}
	cmd := &cobra.Command{
		Use:   cachequeue.Name,
		Short: "Seed 3: cache and queue drivers behind HTTP, every increment and push counted in the store",
		Long: `Start the impl with the addresses of its stores (Redis, Memcached: the environment's, those of
'iobench services up', or started for the run; a ZeroMQ endpoint of its own) and load one route as
wrk does (-c, -t, -d; -R for an open loop):
  /cache/{fake,memcached,redis,predis}   increment the counter "visits" and answer it
  /queue/{fake,zmq,redis,predis}         push "visit"
The run drains at the end; then the store must have counted every response iobench saw, warm-up
and drain included (a request that got no answer may or may not have counted), and a fake route
must have moved nothing; else exit 1 with the counts. With no consumer, iobench binds a PULL
socket on the ZeroMQ endpoint after the load and drains what the app's sockets queued.`,
		Example: `  iobench cachequeue --impl php-cachequeue --route /cache/redis
  iobench cachequeue --impl php-cachequeue --route /queue/zmq -c 20 -d 10s --json zmq.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCachequeue(cmd, &f) },
	}
	fs := cmd.Flags()
	o := &f.opts
	fs.StringVar(&f.implName, "impl", "", "the impl from impls/ (NAME or NAME:VARIANT; see 'iobench impls')")
	fs.StringVar(&o.Route, "route", o.Route, "the route to load, e.g. /cache/redis or /queue/zmq")
	fs.IntVarP(&o.Connections, "connections", "c", 20, "connections kept open (the seed's wrk -c20)")
	fs.IntVarP(&o.Threads, "threads", "t", 0, "generator threads (default min(2, connections))")
	cli.DurationVarP(fs, &o.Duration, "duration", "d", 10*time.Second, "measured duration")
	fs.Float64VarP(&o.Rate, "rate", "R", 0, "open loop: total requests per second")
	cli.DurationVarP(fs, &o.Warmup, "warmup", "", time.Second, "load sent before measuring (counted in the store too)")
	cli.DurationVarP(fs, &o.Timeout, "timeout", "", 2*time.Second, "a slower response is a timeout error")
	fs.StringVar(&f.jsonPath, "json", "", "write the result record to this file ('-' for stdout)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.StringVar(&f.implsDir, "impls-dir", "", "the impls folder (default $IOBENCH_IMPLS_DIR or ./impls)")
	fs.StringVar(&f.stateDir, "state-dir", "", "where impls are installed (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
	return cmd
}

func runCachequeue(cmd *cobra.Command, f *cachequeueFlags) error {
	if f.implName == "" {
		return cli.BadInput("--impl is required, e.g. --impl php-cachequeue; see 'iobench impls'")
	}
	if err := f.opts.Check(); err != nil {
		return cli.RunError(err)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	target, err := implTarget(cmd, f.implsDir, f.stateDir, f.implName, cachequeue.Name)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(cmd.ErrOrStderr(), f.quiet || f.jsonPath == "-")
	f.opts.OnSecond, f.opts.Command = prog.Second, os.Args
	rec, runErr := cachequeue.RunOne(cmd.Context(), target, f.opts)
	prog.Done()
	return emit(cmd, rec, runErr, f.jsonPath, cachequeue.Text, "interrupted; the partial result is above")
}

// implTarget installs and checks the impl NAME[:VARIANT] for a one-run command of workload w.
func implTarget(cmd *cobra.Command, implsDir, stateDir, ref, w string) (workload.Target, error) {
	if implsDir == "" {
		implsDir = impl.DefaultRoot()
	}
	name, vname := impl.ParseRef(ref)
	inst, err := installImpl(cmd.Context(), implsDir, name, stateDir, slog.New(slog.DiscardHandler))
	if err != nil {
		return workload.Target{}, err
	}
	if _, ok := inst.Manifest.Workloads[w]; !ok {
		return workload.Target{}, cli.BadInput("impl %s does not declare the %s workload; see 'iobench impls'", name, w)
	}
	v, ok := inst.Manifest.Variant(vname)
	if !ok {
		return workload.Target{}, cli.BadInput("%v", inst.Manifest.UnknownVariant(vname))
	}
	return workload.Target{Inst: inst, Variant: v}, nil
}
