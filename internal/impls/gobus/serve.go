package gobus

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/timerslack"
)

// Name is what `iobench serve` calls the consumer: `iobench serve bus`, its manifest's start.command
// (impls/go/bus).
const Name = "bus"

// ServeCommand is `iobench serve bus`: the consumer under test, configured from the environment
// the bus driver gives every consumer (ConsumerConfigFromEnv) and from its flags.
func ServeCommand() *cobra.Command {
	var amqpURL, natsURL, brokerURL, profile string
	var threads, gogc int
	var slack time.Duration
	var cfg ConsumerConfig
	env, envErr := ConsumerConfigFromEnv(os.Getenv)
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Run the Go reference consumer of the bus workload (what 'iobench bus' starts)",
		Long: `Consume the command queue iobench.bus.commands (and, in the durable profile, the event queue
iobench.bus.events). For each command: BEGIN; INSERT INTO customers (idempotent on id); publish the
event inside the transaction; COMMIT; then ack. Each event is acked and does nothing else.

sync handles one message at a time with prefetch 1 and one database connection, like the seed's
symfony/messenger; async keeps up to --concurrency handlers in flight in this one process, with a
database pool of as many connections and --prefetch unacked messages, like service-bus. A
command taken while another handler's transaction is open may begin in that transaction's COMMIT
round trip, on its connection (still one transaction per command): a PostgreSQL round trip, the
consumer's dearest cost, saved for about half the commands.

It writes its report stream on stdout ("ready", then one line per handled message, before its
ack; see 'iobench bus --help') and reconnects after losing the broker or the database. Settings
default to the environment 'iobench bus' sets: IOBENCH_AMQP_URL or IOBENCH_NATS_URL,
IOBENCH_DATABASE_URL, IOBENCH_CONCURRENCY, IOBENCH_PREFETCH, IOBENCH_MODE, IOBENCH_BUS_PROFILE.
SIGTERM lets the handlers in flight finish and ack.

The handlers' Go code runs on --threads OS threads at a time (GOMAXPROCS), one by default: like
the seed's PHP consumers and service-bus's one event loop, and cheaper than handing work between
threads, which measured a fifth more CPU per message with two.

Its garbage collector runs when the heap has grown by --gogc percent (400 by default, the
runtime's own default being 100): its heap is a few MiB, so it collects a quarter as often
for a few MiB more, which measured 4-11% less CPU per command.

At start it widens its timer slack to --timer-slack (Linux), re-executing itself so that the Go
runtime's own threads take it too: its sysmon thread then wakes about once a millisecond rather
than every 20-70 µs, and no longer hands the one thread's work to another during short socket
writes, which cost the consumer about a seventh of its CPU. Timers may fire that much later; 0
keeps the inherited slack.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if envErr != nil {
				return cli.RunError(envErr)
			}
			cfg.Log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			if slack < 0 {
				return cli.BadInput("--timer-slack %v: must be 0 or more", slack)
			}
			if gogc < 0 {
				return cli.BadInput("--gogc %d: must be 0 or more", gogc)
			}
			if invokedAs("serve", Name) { // not when a test runs the command in its own process
				if err := timerslack.Ensure(uint64(slack)); err != nil {
					cfg.Log.Warn("bus consumer: keeping the inherited timer slack", "err", err)
				}
			}
			if threads > 0 {
				runtime.GOMAXPROCS(threads)
			}
			if gogc > 0 {
				debug.SetGCPercent(gogc)
			}
			cfg.BrokerURL = firstOf(brokerURL, amqpURL, natsURL, env.BrokerURL)
			cfg.Report = cmd.OutOrStdout()
			if profile != "" {
				stop, err := cli.StartCPUProfile(profile)
				if err != nil {
					return cli.BadInput("--cpuprofile: %v", err)
				}
				// Written as the stop signal arrives: the profile is of the run, not of the shutdown,
				// and a consumer killed after its grace still leaves it.
				stop = sync.OnceFunc(stop)
				defer stop()
				defer context.AfterFunc(cmd.Context(), stop)()
			}
			if err := Consume(cmd.Context(), cfg); err != nil {
				return cli.RunError(err)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.Mode, "mode", env.Mode, "sync or async")
	fs.IntVar(&cfg.Concurrency, "concurrency", env.Concurrency, "async: handlers in flight (and database connections)")
	fs.IntVar(&cfg.Prefetch, "prefetch", env.Prefetch, "async: unacked messages the broker may push (at least --concurrency)")
	fs.StringVar(&cfg.Profile, "profile", env.Profile, "seed or durable")
	fs.StringVar(&amqpURL, "amqp-url", "", "RabbitMQ URL (default $IOBENCH_AMQP_URL)")
	fs.StringVar(&natsURL, "nats-url", "", "NATS URL (default $IOBENCH_NATS_URL)")
	fs.StringVar(&brokerURL, "broker-url", "", "broker URL, amqp:// or nats://")
	fs.StringVar(&cfg.DatabaseURL, "database-url", env.DatabaseURL, "postgres:// or sqlite:// URL (default $IOBENCH_DATABASE_URL)")
	fs.IntVar(&threads, "threads", 1, "OS threads running Go code at once (GOMAXPROCS); 0: one per core")
	fs.IntVar(&gogc, "gogc", 400, "garbage collection target percentage (GOGC); 0 keeps the runtime's ($GOGC or 100)")
	fs.DurationVar(&slack, "timer-slack", time.Millisecond, "how late the kernel may wake the consumer's sleeping threads (0: as inherited)")
	fs.StringVar(&profile, "cpuprofile", "", "write a Go CPU profile of the consumer to this file (e.g. through 'iobench bus --sut-cmd')")
	fs.MarkHidden("cpuprofile")
	return cmd
}

// invokedAs reports whether this process was started as `iobench ARGS...`.
func invokedAs(args ...string) bool {
	return len(os.Args) > len(args) && slices.Equal(os.Args[1:1+len(args)], args)
}

// firstOf returns the first non-empty string.
func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
