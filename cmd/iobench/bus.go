package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload/bus"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
	"github.com/iobench/iobench/internal/workload/runone"
)

func init() { subcommands = append(subcommands, newBusCmd) }

type busFlags struct {
	n                                int
	mode, profile                    string
	concurrency, prefetch            int
	broker, db                       string
	amqpURL, natsURL, databaseURL    string
	timeout                          time.Duration
	fault, jsonPath, sutCmd, verbose string
	stateDir                         string
	quiet                            bool
	impl                             busImplFlags
}

func newBusCmd() *cobra.Command {
	var f busFlags
	cmd := &cobra.Command{
		Use:   bus.Name,
		Short: "Seed 1: a command bus (broker + database) consumed by a sync or an async consumer, every message accounted for",
		Long: `Run the bus workload of seed 1 (symfony/messenger vs service-bus): fill a queue with N commands from
one publisher, then start the consumer ('iobench serve bus' as a child process), which for each
command runs BEGIN; INSERT INTO customers; publish an event; COMMIT; ack, and acks each event.
iobench observes every second and reports the seed's three figures (fill, command processing and
event ACK: mean over the phase and peak second), the end-to-end latency (command sent -> its
event handled), and the CPU and memory of iobench, the consumer, the broker and the database.
It then verifies: one row per command, no duplicate ids, every event seen; a failure exits 1.

Services: by default RabbitMQ and PostgreSQL when installed (started by iobench on free ports of
127.0.0.1 and stopped afterwards), else an embedded NATS server (JetStream) and a SQLite file.
--amqp-url, --nats-url and --database-url (or IOBENCH_AMQP_URL, IOBENCH_NATS_URL,
IOBENCH_DATABASE_URL) use servers you run. A run owns what it touches: it deletes and recreates
the queues iobench.bus.commands and iobench.bus.events (with --impl, the queues and exchange its
manifest declares), creates the table customers if missing
(a customers table of another schema is refused) and EMPTIES it first.

Profiles: seed (transient messages, no confirms, events at the tail of the command queue, as in
the seed) and durable (persistent messages, publisher confirms, a separate durable event queue).
Faults: kill-sut@50% SIGKILLs the consumer when half the commands are handled and starts it
again; restart-broker@50% (durable profile, a broker started by iobench) restarts the broker.
Either way no command may be lost or stored twice; duplicate events are counted.

--impl NAME runs a consumer impl from impls/ (see 'iobench impls'), its variant chosen by --variant
or --mode, on the topology its manifest declares (exchange, queues, routing key). --sut-cmd runs
any other consumer (through /bin/sh -c), on iobench's own topology. It gets IOBENCH_AMQP_URL or
IOBENCH_NATS_URL, IOBENCH_DATABASE_URL, IOBENCH_CONCURRENCY, IOBENCH_PREFETCH, IOBENCH_MODE and
IOBENCH_BUS_PROFILE, and must write on stdout "ready" once consuming, then for each message
before acking it "c SEQ UNIX_NS R" (command committed) or "e SEQ UNIX_NS R" (event handled),
R being 1 for a redelivered message, each line in one write.`,
		Example: `  iobench bus                                  # async consumer, 100,000 commands, default services
  iobench bus --mode sync -n 20000
  iobench bus --impl php-messenger --variant fixed -n 2000 --fault kill-sut@50%
  iobench bus --profile durable --fault kill-sut@50% --json results/bus.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBus(cmd, f) },
	}
	fs := cmd.Flags()
	fs.IntVarP(&f.n, "number", "n", 100000, "commands to send")
	fs.StringVar(&f.mode, "mode", bus.ModeAsync, "consumer mode: sync (one message at a time, prefetch 1) or async")
	fs.IntVar(&f.concurrency, "concurrency", bus.DefaultConcurrency, "async: handlers in flight in the one consumer process (and its pool size)")
	fs.IntVar(&f.prefetch, "prefetch", bus.DefaultPrefetch, "async: unacked messages the broker may push (at least --concurrency)")
	fs.StringVar(&f.profile, "profile", bus.ProfileSeed, "seed or durable")
	fs.StringVar(&f.broker, "broker", "", "amqp or nats (default: amqp when RabbitMQ is installed, else embedded nats)")
	fs.StringVar(&f.db, "db", "", "postgres or sqlite (default: postgres when installed, else a sqlite file)")
	fs.StringVar(&f.amqpURL, "amqp-url", "", "use this RabbitMQ, e.g. amqp://guest:guest@127.0.0.1:5672/")
	fs.StringVar(&f.natsURL, "nats-url", "", "use this NATS server (with JetStream), e.g. nats://127.0.0.1:4222")
	fs.StringVar(&f.databaseURL, "database-url", "", "use this database: postgres://user:pass@127.0.0.1:5432/db or sqlite:///path.db")
	cli.DurationVarP(fs, &f.timeout, "timeout", "", bus.DefaultTimeout, "bound on the whole run")
	fs.StringVar(&f.fault, "fault", "", "inject a fault: kill-sut@50% or restart-broker@50%")
	fs.StringVar(&f.jsonPath, "json", "", "write the result record to this file ('-' for stdout)")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory of 'iobench services up' whose servers to use (default: iobench's own)")
	fs.StringVar(&f.sutCmd, "sut-cmd", "", "run this consumer instead of 'iobench serve bus' (see above)")
	fs.StringVar(&f.verbose, "log", "warn", "log level on stderr: debug, info (services, consumer output), warn")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	f.impl.add(cmd)
	return cmd
}

// runBus turns the flags into one bus run of the consumer they pick (busTarget) and runs it as a
// one-run suite does (bus.RunOne).
func runBus(cmd *cobra.Command, f busFlags) error {
	stderr := cmd.ErrOrStderr()
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.verbose)); err != nil {
		return cli.BadInput("--log %q: use debug, info or warn", f.verbose)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := busproto.CheckModeProfile(f.mode, f.profile); err != nil {
		return cli.RunError(err)
	}
	if fs := cmd.Flags(); f.mode == bus.ModeSync && (fs.Changed("concurrency") || fs.Changed("prefetch")) {
		return cli.BadInput("--mode sync handles one message at a time (concurrency 1, prefetch 1); drop --concurrency and --prefetch")
	}
	if _, err := bus.ParseFault(f.fault); err != nil {
		return cli.RunError(err)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	target, err := f.target(cmd, log)
	if err != nil {
		return err
	}
	o := bus.Options{
		N: f.n, Concurrency: f.concurrency, Prefetch: f.prefetch, Profile: f.profile, Fault: f.fault, Timeout: f.timeout,
		Services: bus.ServicesConfig{
			Broker: f.broker, DB: f.db, AMQPURL: f.amqpURL, NATSURL: f.natsURL, DatabaseURL: f.databaseURL,
			Options: service.Options{StateDir: f.stateDir, Logger: log},
		},
		Command: os.Args, Log: log,
	}
	prog := cli.NewProgress(stderr, f.quiet)
	if prog.On() {
		o.Progress = stderr
		prog.Line("starting services...")
	}
	rec, runErr := bus.RunOne(cmd.Context(), target, o)
	prog.Done()
	if rec != nil && runErr != nil && flawOnly(rec, runErr) {
		if err := runone.Emit(cmd, rec, nil, f.jsonPath, bus.WriteSummary, ""); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: %v\n", report.StatusText(report.StatusFlaw, rec.Expect), runErr)
		return nil
	}
	return runone.Emit(cmd, rec, runErr, f.jsonPath, bus.WriteSummary, "interrupted; the partial result is above")
}
