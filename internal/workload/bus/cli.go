package bus

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
	"github.com/iobench/iobench/internal/workload/runone"
)

// flags are `iobench bus`'s: one run's options, the services, and the consumer to run (an impl
// from impls/, go-bus by default, or a command of the user's, --sut-cmd).
type flags struct {
	n                             int
	mode, profile                 string
	concurrency, prefetch         int
	broker, db                    string
	amqpURL, natsURL, databaseURL string
	timeout                       time.Duration
	jsonPath, sutCmd, verbose     string
	fault                         []string
	stateDir                      string
	quiet                         bool
	impl, variant, implsDir       string
	inject                        []string
}

// newCommand is `iobench bus` (workload.Workload.Command): one run of a consumer, as a one-run
// suite would measure it (RunOne).
func newCommand() *cobra.Command {
	var f flags
	cmd := &cobra.Command{
		Use:   Name,
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
again; restart-rabbitmq@50% (or restart-broker@50%; durable profile, a broker started by iobench)
restarts the broker; restart-postgres@50% restarts PostgreSQL. A bus run takes one fault
(docs/FAULTS.md).
Either way no command may be lost or stored twice; duplicate events are counted.

--inject postgres:latency=5ms[,jitter=200us] (or rabbitmq; repeatable) puts iobench's relay ('iobench
serve proxy', a child process of its own, role proxy) between the consumer and that service: each
answer reaches the consumer that much later. The record's inject section gives the latency the relay
added per round trip as it measured it, and turns_per_op, the round trips per command. iobench's own
connections go direct.

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
		RunE: func(cmd *cobra.Command, _ []string) error { return runCommand(cmd, f) },
	}
	fs := cmd.Flags()
	fs.IntVarP(&f.n, "number", "n", 100000, "commands to send")
	fs.StringVar(&f.mode, "mode", ModeAsync, "consumer mode: sync (one message at a time, prefetch 1) or async")
	fs.IntVar(&f.concurrency, "concurrency", DefaultConcurrency, "async: handlers in flight in the one consumer process (and its pool size)")
	fs.IntVar(&f.prefetch, "prefetch", DefaultPrefetch, "async: unacked messages the broker may push (at least --concurrency)")
	fs.StringVar(&f.profile, "profile", ProfileSeed, "seed or durable")
	fs.StringVar(&f.broker, "broker", "", "amqp or nats (default: amqp when RabbitMQ is installed, else embedded nats)")
	fs.StringVar(&f.db, "db", "", "postgres or sqlite (default: postgres when installed, else a sqlite file)")
	fs.StringVar(&f.amqpURL, "amqp-url", "", "use this RabbitMQ, e.g. amqp://guest:guest@127.0.0.1:5672/")
	fs.StringVar(&f.natsURL, "nats-url", "", "use this NATS server (with JetStream), e.g. nats://127.0.0.1:4222")
	fs.StringVar(&f.databaseURL, "database-url", "", "use this database: postgres://user:pass@127.0.0.1:5432/db or sqlite:///path.db")
	cli.DurationVarP(fs, &f.timeout, "timeout", "", DefaultTimeout, "bound on the whole run")
	fault.AddFlag(fs, &f.fault)
	fs.StringArrayVar(&f.inject, "inject", nil, "delay a service's answers to the consumer through a relay, e.g. postgres:latency=5ms,jitter=200us (repeatable; postgres or rabbitmq, or database, broker)")
	fs.StringVar(&f.jsonPath, "json", "", "write the result record to this file ('-' for stdout)")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory of 'iobench services up' whose servers to use (default: iobench's own)")
	fs.StringVar(&f.sutCmd, "sut-cmd", "", "run this consumer instead of 'iobench serve bus' (see above)")
	fs.StringVar(&f.verbose, "log", "warn", "log level on stderr: debug, info (services, consumer output), warn")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.StringVar(&f.impl, "impl", "", "run this consumer impl from impls/ (NAME or NAME:VARIANT, see 'iobench impls')")
	fs.StringVar(&f.variant, "variant", "", "the impl's variant (default: its first of --mode)")
	fs.StringVar(&f.implsDir, "impls-dir", "", impl.RootFlagHelp)
	return cmd
}

// runCommand turns the flags into one bus run of the consumer they pick (target) and runs it as a
// one-run suite does (RunOne); a run that only reproduced the seed flaws its variant expects is
// no failure.
func runCommand(cmd *cobra.Command, f flags) error {
	stderr := cmd.ErrOrStderr()
	log, err := runone.Logger(f.verbose, stderr)
	if err != nil {
		return err
	}
	if err := busproto.CheckModeProfile(f.mode, f.profile); err != nil {
		return cli.RunError(err)
	}
	if fs := cmd.Flags(); f.mode == ModeSync && (fs.Changed("concurrency") || fs.Changed("prefetch")) {
		return cli.BadInput("--mode sync handles one message at a time (concurrency 1, prefetch 1); drop --concurrency and --prefetch")
	}
	if _, err := ParseFault(strings.Join(f.fault, ";")); err != nil {
		return cli.RunError(err)
	}
	if _, err := inject.ParseAll(f.inject); err != nil {
		return cli.RunError(err)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	target, err := f.target(cmd, log)
	if err != nil {
		return err
	}
	o := Options{
		N: f.n, Concurrency: f.concurrency, Prefetch: f.prefetch, Profile: f.profile, Fault: strings.Join(f.fault, ";"), Timeout: f.timeout, Inject: f.inject,
		Services: ServicesConfig{
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
	rec, runErr := RunOne(cmd.Context(), target, o)
	prog.Done()
	if rec != nil && runErr != nil && flawOnly(rec, runErr) {
		if err := runone.Emit(cmd, rec, nil, f.jsonPath, WriteSummary, ""); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: %v\n", workload.FlawText(rec.Expect), runErr)
		return nil
	}
	return runone.Emit(cmd, rec, runErr, f.jsonPath, WriteSummary, "interrupted; the partial result is above")
}

// target is the consumer the flags pick: --sut-cmd through sh -c in --mode; else the impl --impl
// names (DefaultImpl without it), installed and checked, its variant picked by --variant or
// --mode (workload.Pick; --mode counts for --impl only when given).
func (f *flags) target(cmd *cobra.Command, log *slog.Logger) (workload.Target, error) {
	ref, err := runone.Ref(f.impl, f.variant)
	switch {
	case err != nil:
		return workload.Target{}, err
	case ref != "" && f.sutCmd != "":
		return workload.Target{}, cli.BadInput("--impl and --sut-cmd both given; drop one")
	case f.sutCmd != "":
		return CommandTarget([]string{"/bin/sh", "-c", f.sutCmd}, f.mode, filepath.Join(os.TempDir(), "iobench-sut-cmd")), nil
	}
	name, variant := impl.ParseRef(ref)
	mode := f.mode
	if ref == "" {
		name = DefaultImpl
	} else if !cmd.Flags().Changed("mode") {
		mode = ""
	}
	inst, err := runone.InstallFor(cmd.Context(), f.implsDir, f.stateDir, name, Name, log)
	if err != nil {
		return workload.Target{}, err
	}
	t, err := workload.Pick(inst, variant, mode)
	if err != nil {
		return workload.Target{}, cli.BadInput("%v", err)
	}
	return t, nil
}

// flawOnly says whether a run that failed verification only reproduced the seed flaws its
// variant expects (judged as every reader of the record judges it); such a run is no failure.
func flawOnly(rec *result.Record, runErr error) bool {
	v := workload.Judge(rec, runErr)
	rec.Verification = &v
	return FlawReproduced(rec)
}
