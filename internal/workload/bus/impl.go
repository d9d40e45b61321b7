package bus

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// DefaultImpl is the consumer `iobench bus` runs without --impl or --sut-cmd: the built-in Go
// consumer, started from its manifest (impls/go/bus) as any other impl.
const DefaultImpl = "go-bus"

// UseImpl makes an installed consumer impl, running variant v, the consumer of cfg: Run starts it
// through its installation (impl.Installation.Start: its command line, environment, readiness
// and stop as its manifest says). cfg takes its topology, its name, the variant's name, mode and
// expected findings, and the variants that survive a broker restart.
func UseImpl(cfg *Config, inst *impl.Installation, v impl.Variant) {
	cfg.Consumer = workload.Target{Inst: inst, Variant: v}
	cfg.Topology = DefaultTopology // a command of the user's: iobench's own queues, any broker and database
	if cfg.fromManifest() {
		cfg.Topology = TopologyOf(inst.Manifest)
	}
	cfg.Impl, cfg.Variant, cfg.Expect = inst.Manifest.Name, v.Name, v.Expect
	cfg.RestartBroker = ManifestOf(inst.Manifest).RestartBroker
	cfg.RestartPostgres = ManifestOf(inst.Manifest).RestartPostgres
	cfg.Mode = v.Mode
}

// CommandTarget is a consumer that is no impl of impls/: argv (`iobench bus --sut-cmd`'s sh -c,
// a test's own binary) in mode, on iobench's own queues (UseImpl), stopped with SIGTERM and SIGKILL 10 s
// later, its log in dir/logs. It is named after its program: for sh -c, the script's first word.
func CommandTarget(argv []string, mode, dir string) workload.Target {
	m := &impl.Manifest{Name: commandName(argv), Variants: []impl.Variant{{Mode: mode}},
		Start: impl.StartSpec{Command: argv}, Stop: impl.StopSpec{Timeout: "10s"}}
	return workload.Target{Inst: &impl.Installation{Manifest: m, Dir: dir}, Variant: m.Variants[0]}
}

func commandName(argv []string) string {
	if len(argv) == 3 && argv[1] == "-c" && len(strings.Fields(argv[2])) > 0 {
		return filepath.Base(strings.Fields(argv[2])[0])
	}
	if len(argv) == 0 {
		return "consumer"
	}
	return filepath.Base(argv[0])
}

// Prefer steers the automatic choice of services (no kind and no URL given) towards what an
// impl with topology t speaks: RabbitMQ for one without NATS, PostgreSQL for one without SQLite.
// When that service is neither installed nor given in the environment, or the user asked for
// one the impl does not speak, it says what to install or change.
func (t Topology) Prefer(name string, c *ServicesConfig) error {
	if (c.Broker == "nats" || c.NATSURL != "") && !slices.Contains(t.Brokers, "nats") {
		return fmt.Errorf("%w: %s speaks AMQP only, not NATS; use RabbitMQ (drop --broker nats and --nats-url; scripts/install-services.sh installs it)", ErrBadInput, name)
	}
	if (c.DB == "sqlite" || strings.HasPrefix(c.DatabaseURL, "sqlite")) && !slices.Contains(t.Databases, "sqlite") {
		return fmt.Errorf("%w: %s needs PostgreSQL, not SQLite; drop --db sqlite (scripts/install-services.sh installs PostgreSQL) or pass --database-url postgres://...", ErrBadInput, name)
	}
	if c.Broker == "" && c.AMQPURL == "" && c.NATSURL == "" && !slices.Contains(t.Brokers, "nats") {
		if os.Getenv(env.AMQPURL) == "" && service.Installed("rabbitmq") != nil {
			return notInstalled("%s speaks AMQP only and RabbitMQ is not installed (only embedded NATS is at hand); install it with scripts/install-services.sh (apt-get install rabbitmq-server) or pass --amqp-url", name)
		}
		c.Broker = "amqp"
	}
	if c.DB == "" && c.DatabaseURL == "" && !slices.Contains(t.Databases, "sqlite") {
		if !strings.HasPrefix(os.Getenv(env.DatabaseURL), "postgres") && service.Installed("postgres") != nil {
			return notInstalled("%s needs PostgreSQL and it is not installed (only SQLite is at hand); install it with scripts/install-services.sh (apt-get install postgresql) or pass --database-url", name)
		}
		c.DB = "postgres"
	}
	return nil
}

// FlawReproduced says whether a run that failed verification did so only by reproducing the
// seed flaws its variant expects (rec.Expect), with their signature (flaw):
// workload.FlawReproduced, as every reader of the record judges it.
func FlawReproduced(rec *result.Record) bool {
	ok, _ := workload.FlawReproduced(rec)
	return ok
}

// notInstalled is the error of a server the impl needs that is not on this machine: bad input
// for `iobench bus`, and service.ErrNotInstalled, which a suite skips with this one line.
func notInstalled(format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrBadInput, service.NotInstalled(fmt.Sprintf(format, args...)))
}
