package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload/publish"
)

func init() { subcommands = append(subcommands, newPublishCmd) }

// brokerFlags are the flags that find the broker and the impls.
type brokerFlags struct {
	amqpURL, stateDir, implsDir, logLevel string
}

func (b *brokerFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&b.amqpURL, "amqp-url", "", "use this RabbitMQ (default $IOBENCH_AMQP_URL, the one of 'iobench services up', else one started for the run)")
	fs.StringVar(&b.stateDir, "state-dir", "", "iobench's state directory: services and impl virtualenvs (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
	fs.StringVar(&b.implsDir, "impls-dir", "", "the impls folder (default $IOBENCH_IMPLS_DIR or ./impls)")
	fs.StringVar(&b.logLevel, "log", "warn", "log level on stderr: debug, info, warn")
}

func (b *brokerFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(b.logLevel)); err != nil {
		return nil, cli.BadInput("--log %q: use debug, info or warn", b.logLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}

func (b *brokerFlags) root() string {
	if b.implsDir != "" {
		return b.implsDir
	}
	return impl.DefaultRoot()
}

// pubBroker is the RabbitMQ of a run; close stops it when this run started it.
type pubBroker struct {
	url  string
	inst *service.Instance
}

// openBroker resolves the broker (service.Resolve): --amqp-url, else the environment's, the one
// of `services up`, or a private instance started for this run.
func (b *brokerFlags) openBroker(ctx context.Context, log *slog.Logger) (*pubBroker, error) {
	inst, err := service.Resolve(ctx, publish.BrokerRole, service.Choice{URL: b.amqpURL}, service.Options{StateDir: b.stateDir, Logger: log})
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	return &pubBroker{url: inst.URL, inst: inst}, nil
}

func (br *pubBroker) pids() func() []int {
	if br.inst == nil {
		return nil
	}
	return br.inst.PIDs
}

func (br *pubBroker) versions() map[string]string {
	if br.inst == nil || br.inst.Version == "" {
		return nil
	}
	return map[string]string{"rabbitmq": br.inst.Version}
}

func (br *pubBroker) close(ctx context.Context, log *slog.Logger) {
	if br != nil && br.inst != nil {
		if err := br.inst.Stop(context.WithoutCancel(ctx)); err != nil {
			log.Warn("stopping rabbitmq", "err", err)
		}
	}
}

type publishFlags struct {
	brokerFlags
	cfg              publish.Config
	preset           string
	implName         string
	variant          string
	jsonPath         string
	quiet            bool
	concurrencyAlias int
}

func newPublishCmd() *cobra.Command {
	f := publishFlags{cfg: publish.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   publish.Name,
		Short: "Seed 2: publish throughput to RabbitMQ, counted at the broker (Go publisher, presets, or a Python impl)",
		Long: `Publish messages to one RabbitMQ queue and report what the BROKER accepted: the publisher
confirms it sent (--confirm N), or else the queue's message count read from the broker every
second (plus what consumers received, with --consumers). The client write rate, what the
publishers wrote to their sockets, is reported apart and labelled; it is what seed 2 printed.
Both come as a sustained mean (first publish to the moment the broker had counted the last
message) and the best one-second interval, with the per-second series in the --json record,
per-publisher counts, the CPU seconds and peak RSS of iobench and RabbitMQ, and with
--consumers the end-to-end latency and lost/duplicated counts. The run deletes and redeclares
its queue first and deletes it afterwards (--keep-queue keeps it).

Presets reproduce seed 2's Go runs (default exchange, non-durable queue, transient, no confirms):
  go-single  1 publisher, 50,000 seed JSON messages to go_queue
  go-pool    NumCPU publishers, a connection each, 50,000 to go_worker_queue
  go-ultra   2 x NumCPU publishers, a connection each, 500,000 minimal JSON to ultra_fast_queue
--impl NAME --variant V runs an external publisher from impls/ (see 'iobench impls') under the
same broker-side counting; 'iobench publish seed2' runs the whole seed 2 comparison.`,
		Example: `  iobench publish -P 1 -d 10s --size 100
  iobench publish -P 1 -d 10s --size 100 --persistent --queue-durable --confirm 100
  iobench publish --preset go-ultra
  iobench publish --impl python-pika-publisher --variant processes
  iobench publish --consumers 2 -n 200000 --json results/publish.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPublish(cmd, &f) },
	}
	fs := cmd.Flags()
	c := &f.cfg
	fs.IntVarP(&c.Publishers, "publishers", "P", c.Publishers, "concurrent publishers (with --impl: the variant's threads, processes or tasks)")
	fs.BoolVar(&c.ShareConnection, "share-connection", false, "publishers share one connection, a channel each (default: a connection each)")
	fs.BoolVar(&c.Persistent, "persistent", false, "persistent messages (delivery mode 2); needs --queue-durable")
	fs.IntVar(&c.Confirm, "confirm", 0, "publisher confirms with N outstanding per publisher; 0 = off")
	fs.IntVar(&c.Size, "size", c.Size, fmt.Sprintf("body size in bytes for --body binary (at least %d, the bookkeeping header)", publish.HeaderSize))
	fs.StringVar(&c.Body, "body", c.Body, "binary (--size bytes), seed (the seed's JSON) or seed-min (without timestamp)")
	fs.Int64VarP(&c.Count, "number", "n", c.Count, "messages in all, split over the publishers")
	cli.DurationVarP(fs, &c.Duration, "duration", "d", 0, "publish for this long instead of -n (e.g. 10s)")
	fs.StringVar(&c.Queue, "queue", c.Queue, "queue to publish to (through the default exchange)")
	fs.BoolVar(&c.QueueDurable, "queue-durable", false, "declare the queue durable")
	fs.IntVar(&c.Consumers, "consumers", 0, "consumers reading during the run (0: publish only, as the seed)")
	fs.IntVar(&c.Prefetch, "prefetch", c.Prefetch, "the consumers' prefetch (basic.qos)")
	cli.DurationVarP(fs, &c.DrainTimeout, "drain-timeout", "", c.DrainTimeout, "how long the broker may take to count the last messages")
	fs.BoolVar(&c.KeepQueue, "keep-queue", false, "leave the queue and its messages after the run")
	fs.StringVar(&f.preset, "preset", "", "go-single, go-pool or go-ultra (seed 2's Go runs); other flags given override it")
	fs.StringVar(&f.implName, "impl", "", "run this publisher impl from impls/ instead of the built-in one")
	fs.StringVar(&f.variant, "variant", "", "the impl's variant (see 'iobench impls')")
	fs.StringVar(&f.jsonPath, "json", "", "write the result record to this file ('-' for stdout)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	f.brokerFlags.add(cmd)
	cmd.AddCommand(newSeed2Cmd())
	return cmd
}

func runPublish(cmd *cobra.Command, f *publishFlags) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	log, err := f.logger(stderr)
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
	if f.preset != "" {
		if f.implName != "" {
			return cli.BadInput("--preset and --impl both given; presets are the built-in Go publisher's, drop one")
		}
		// The preset first, then every flag the user gave on top of it.
		base := cfg
		if err := publish.ApplyPreset(&cfg, f.preset); err != nil {
			return cli.RunError(err)
		}
		overrideChanged(fs.Changed, &cfg, &base)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	var inst *impl.Installation
	if f.implName != "" {
		if f.variant == "" {
			return cli.BadInput("--impl %s needs --variant; see 'iobench impls'", f.implName)
		}
		if inst, err = installImpl(ctx, f.root(), f.implName, f.stateDir, log); err != nil {
			return err
		}
	} else if f.variant != "" {
		return cli.BadInput("--variant without --impl; name the impl too")
	}
	cfg.URL = "amqp://check/" // checked for real once the broker is known
	if inst == nil {
		if err := cfg.Check(); err != nil {
			return cli.RunError(err)
		}
	}
	prog := cli.NewProgress(stderr, f.quiet)
	prog.Line("starting rabbitmq...")
	br, err := f.openBroker(ctx, log)
	prog.Done()
	if err != nil {
		return err
	}
	defer br.close(ctx, log)
	cfg.URL, cfg.Command, cfg.Versions, cfg.BrokerPIDs, cfg.Log = br.url, os.Args, br.versions(), br.pids(), log
	if prog.On() {
		cfg.Progress = stderr
	}
	var rec *result.Record
	var runErr error
	if inst != nil {
		ic := publish.ImplConfig{
			Installation: inst, Variant: f.variant, URL: br.url, DrainTimeout: cfg.DrainTimeout,
			Command: os.Args, Versions: br.versions(), BrokerPIDs: br.pids(), Log: log, Progress: cfg.Progress,
		}
		if fs.Changed("number") {
			ic.Count = int(cfg.Count)
		}
		if fs.Changed("publishers") {
			ic.Concurrency = cfg.Publishers
		}
		if fs.Changed("queue") {
			ic.Queue = cfg.Queue
		}
		rec, runErr = publish.RunImpl(ctx, ic)
	} else {
		rec, runErr = publish.Run(ctx, cfg)
	}
	prog.Done()
	if rec != nil {
		out := cmd.OutOrStdout()
		if f.jsonPath == "-" {
			out = stderr
		}
		if err := publish.WriteSummary(out, rec); err != nil {
			return err
		}
		if f.jsonPath != "" {
			if err := result.Save(f.jsonPath, rec, cmd.OutOrStdout()); err != nil {
				return cli.Failed(err)
			}
		}
	}
	if runErr != nil {
		return cli.RunError(runErr)
	}
	if rec != nil && rec.Interrupted {
		return cli.Interrupted(fmt.Errorf("interrupted; the summary covers the part that ran"))
	}
	return nil
}

// overrideChanged copies onto cfg (a preset) the flags the user gave, which live in base.
func overrideChanged(changed func(string) bool, cfg, base *publish.Config) {
	type pair struct {
		flag string
		set  func()
	}
	for _, p := range []pair{
		{"publishers", func() { cfg.Publishers = base.Publishers }},
		{"share-connection", func() { cfg.ShareConnection = base.ShareConnection }},
		{"persistent", func() { cfg.Persistent = base.Persistent }},
		{"confirm", func() { cfg.Confirm = base.Confirm }},
		{"size", func() { cfg.Size = base.Size; cfg.Body = publish.BodyBinary }},
		{"body", func() { cfg.Body = base.Body }},
		{"number", func() { cfg.Count, cfg.Duration = base.Count, 0 }},
		{"duration", func() { cfg.Duration = base.Duration; cfg.Count = 0 }},
		{"queue", func() { cfg.Queue = base.Queue }},
		{"queue-durable", func() { cfg.QueueDurable = base.QueueDurable }},
		{"consumers", func() { cfg.Consumers = base.Consumers }},
	} {
		if changed(p.flag) {
			p.set()
		}
	}
}

// installImpl finds, installs and checks an impl; every failure is bad input (exit 2).
func installImpl(ctx context.Context, root, name, stateDir string, log *slog.Logger) (*impl.Installation, error) {
	m, err := impl.Find(root, name)
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	inst, err := impl.Install(ctx, m, impl.InstallOptions{StateDir: stateDir, Logger: log})
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	if err := inst.Check(ctx); err != nil {
		return nil, cli.BadInput("%v", err)
	}
	return inst, nil
}

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
				inst, err := installImpl(ctx, b.root(), name, b.stateDir, log)
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
				Command: os.Args, Versions: br.versions(), BrokerPIDs: br.pids(), Log: log,
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

func (br *pubBroker) label() string {
	if br.inst == nil {
		return "RabbitMQ at " + service.Redact(br.url)
	}
	return fmt.Sprintf("RabbitMQ %s (%s)", br.inst.Version, br.inst.Kind)
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
