package publish

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impls/gopublisher"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/runone"
)

// flags are `iobench publish`'s: the built-in publisher's settings (some of which go on top of an
// impl's variant), the impl to run instead, and the broker.
type flags struct {
	runone.Broker
	cfg      Config
	implName string
	variant  string
	jsonPath string
	quiet    bool
}

// newCommand is `iobench publish` (workload.Workload.Command): one run of the built-in publisher
// or of an impl, counted at the broker (RunOne), and `publish seed2`.
func newCommand() *cobra.Command {
	f := flags{cfg: DefaultConfig()}
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Seed 2: publish throughput to RabbitMQ, counted at the broker (the built-in Go publisher, or an impl)",
		Long: `Publish messages to one RabbitMQ queue and report what the BROKER accepted: the publisher
confirms it sent (--confirm N), or else the queue's message count read from the broker every
second (plus what consumers received, with --consumers). The client write rate, what the
publishers wrote to their sockets, is reported apart and labelled; it is what seed 2 printed.
Both come as a sustained mean (first publish to the moment the broker had counted the last
message) and the best one-second interval, with the per-second series in the --json record,
per-publisher counts, the CPU seconds and peak RSS of iobench and RabbitMQ, and with
--consumers the end-to-end latency and lost/duplicated counts. The run deletes and redeclares
its queue first and deletes it afterwards (--keep-queue keeps it).

Without --impl the publisher is the built-in Go one, go-publisher's code run in iobench's own
process with every setting below. --impl NAME[:VARIANT] runs a publisher impl from impls/
instead (see 'iobench impls'; without a variant, its first): its variant's queue, count,
concurrency, persistence and confirms, with -n, -P and --queue on top when given, under the
same broker-side counting. seed 2's Go runs are go-publisher's variants single, pool and ultra;
'iobench publish seed2' runs the whole seed 2 comparison (scenarios/seed2-publish.yaml).`,
		Example: `  iobench publish -P 1 -d 10s --size 100
  iobench publish -P 1 -d 10s --size 100 --persistent --queue-durable --confirm 100
  iobench publish --impl go-publisher:ultra
  iobench publish --impl python-pika-publisher:processes
  iobench publish --consumers 2 -n 200000 --json results/publish.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCommand(cmd, &f) },
	}
	fs := cmd.Flags()
	c := &f.cfg
	fs.IntVarP(&c.Publishers, "publishers", "P", c.Publishers, "concurrent publishers (with --impl: the variant's threads, processes or tasks)")
	fs.BoolVar(&c.ShareConnection, "share-connection", false, "publishers share one connection, a channel each (default: a connection each)")
	fs.BoolVar(&c.Persistent, "persistent", false, "persistent messages (delivery mode 2); needs --queue-durable")
	fs.IntVar(&c.Confirm, "confirm", 0, "publisher confirms with N outstanding per publisher; 0 = off")
	fs.IntVar(&c.Size, "size", c.Size, fmt.Sprintf("body size in bytes for --body binary (at least %d, the bookkeeping header)", gopublisher.HeaderSize))
	fs.StringVar(&c.Body, "body", c.Body, "binary (--size bytes), seed (the seed's JSON) or seed-min (without timestamp)")
	fs.Int64VarP(&c.Count, "number", "n", c.Count, "messages in all, split over the publishers")
	cli.DurationVarP(fs, &c.Duration, "duration", "d", 0, "publish for this long instead of -n (e.g. 10s)")
	fs.StringVar(&c.Queue, "queue", c.Queue, "queue to publish to (through the default exchange)")
	fs.BoolVar(&c.QueueDurable, "queue-durable", false, "declare the queue durable")
	fs.IntVar(&c.Consumers, "consumers", 0, "consumers reading during the run (0: publish only, as the seed)")
	fs.IntVar(&c.Prefetch, "prefetch", c.Prefetch, "the consumers' prefetch (basic.qos)")
	cli.DurationVarP(fs, &c.DrainTimeout, "drain-timeout", "", c.DrainTimeout, "how long the broker may take to count the last messages")
	fs.BoolVar(&c.KeepQueue, "keep-queue", false, "leave the queue and its messages after the run")
	fs.StringArrayVar(&c.Inject, "inject", nil, "with --impl: delay RabbitMQ's answers to the impl through a relay, e.g. rabbitmq:latency=1ms,jitter=100us (or broker)")
	fs.StringVar(&f.implName, "impl", "", "run this publisher impl from impls/ instead of the built-in one (NAME or NAME:VARIANT; see 'iobench impls')")
	fs.StringVar(&f.variant, "variant", "", "the impl's variant, as --impl NAME:VARIANT (default: its first)")
	fs.StringVar(&f.jsonPath, "json", "", "write the result record to this file ('-' for stdout)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	f.Broker.Add(fs)
	cmd.AddCommand(newSeed2Command())
	return cmd
}

// seed2Scenario is seed 2's scenario, embedded in the binary, that `iobench publish seed2` runs.
const seed2Scenario = "seed2-publish.yaml"

// newSeed2Command is `iobench publish seed2`: another name for running
// scenarios/seed2-publish.yaml, the embedded one, as `iobench run` does (runone.Shipped).
func newSeed2Command() *cobra.Command {
	return runone.Shipped(&cobra.Command{
		Use:   "seed2",
		Short: "Run seed 2's whole comparison (scenarios/seed2-publish.yaml, as 'iobench run' does), counted at the broker",
		Long: `Run seed 2's scenario, scenarios/seed2-publish.yaml as embedded in this binary, exactly as
'iobench run scenarios/seed2-publish.yaml' does: every Python variant of
impls/python/pika-publisher and impls/python/aio-pika-publisher, and go-publisher's single, pool
and ultra, one after the other on the same RabbitMQ, each counted at the broker, with a text
block per run, a summary and an HTML report in --results, and seed 2's section: its figures
beside ours and its claims' verdicts. A fifth of the seed's message counts by default; --full
runs the seed's own. The Python impls are installed into virtualenvs under the state directory
on first use (pip, from PyPI).`,
		Example: `  iobench publish seed2
  iobench publish seed2 --full --results results/seed2`,
	}, seed2Scenario)
}

// runCommand turns the flags into one publish run (RunOne): the impl --impl names, with
// the flags given on top of its variant, or the built-in publisher with all of them.
func runCommand(cmd *cobra.Command, f *flags) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	log, err := f.Logger(stderr)
	if err != nil {
		return err
	}
	fs := cmd.Flags()
	cfg := f.cfg
	if fs.Changed("duration") && cfg.Duration <= 0 {
		return cli.BadInput("-d %v: use a positive duration such as 10s", cfg.Duration)
	}
	if fs.Changed("duration") && !fs.Changed("number") {
		cfg.Count = 0
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	ref, err := runone.Ref(f.implName, f.variant)
	if err != nil {
		return err
	}
	if specs, err := inject.ParseAll(cfg.Inject); err != nil {
		return err
	} else if _, err := injectSpecs(map[string]any{inject.Param: inject.Join(specs)}, ref != ""); err != nil {
		return err
	}
	var target workload.Target
	if ref != "" {
		if target, err = runone.Target(cmd.Context(), f.ImplsDir, f.StateDir, ref, Name); err != nil {
			return err
		}
		onImpl(fs.Changed, &cfg)
	} else {
		cfg.URL = "amqp://check/" // checked for real once the broker is known
		if err := cfg.Check(); err != nil {
			return cli.RunError(err)
		}
	}
	prog := cli.NewProgress(stderr, f.quiet)
	prog.Line("starting rabbitmq...")
	broker, stop, err := f.Open(ctx, BrokerRole, log)
	prog.Done()
	if err != nil {
		return err
	}
	defer stop()
	cfg.Command, cfg.Log = os.Args, log
	if prog.On() {
		cfg.Progress = stderr
	}
	rec, runErr := RunOne(ctx, target, cfg, broker)
	prog.Done()
	return runone.Emit(cmd, rec, runErr, f.jsonPath, WriteSummary, "interrupted; the summary covers the part that ran")
}

// onImpl keeps, of the settings an impl's variant gives, only those the user gave: -n, -P and
// --queue (zero for the variant's own).
func onImpl(changed func(string) bool, cfg *Config) {
	if !changed("number") {
		cfg.Count = 0
	}
	if !changed("publishers") {
		cfg.Publishers = 0
	}
	if !changed("queue") {
		cfg.Queue = ""
	}
}
