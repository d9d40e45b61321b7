package bus

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// UseImpl makes an installed consumer impl, running variant v, the consumer of cfg: its command
// line, its environment (the installation's and the variant's), its topology, its name, the
// variant's name, mode and expected findings, the variants that survive a broker restart, and
// how it stops (stop.signal, stop.timeout).
func UseImpl(cfg *Config, inst *impl.Installation, v impl.Variant) {
	cfg.SUT = inst.Command()
	cfg.SUTEnv = inst.RuntimeEnv(v)
	cfg.Topology = TopologyOf(inst.Manifest)
	cfg.Impl, cfg.Variant, cfg.Expect = inst.Manifest.Name, v.Name, v.Expect
	cfg.RestartBroker = SectionOf(inst.Manifest).RestartBroker
	cfg.Mode = v.Mode
	cfg.StopSignal, cfg.StopGrace = inst.Manifest.StopSignal(), inst.Manifest.StopTimeout()
}

// PickVariant returns m's variant called name, or, for "", its first of mode (its first when
// mode is "").
func PickVariant(m *impl.Manifest, name, mode string) (impl.Variant, error) {
	if name != "" {
		v, ok := m.Variant(name)
		if !ok {
			return v, fmt.Errorf("%w: %v", ErrBadInput, m.UnknownVariant(name))
		}
		return v, nil
	}
	for _, v := range m.Variants {
		if mode == "" || v.Mode == mode {
			return v, nil
		}
	}
	return impl.Variant{}, fmt.Errorf("%w: impl %s has no %s variant; choose one of %s with --variant", ErrBadInput, m.Name, mode, m.VariantsText())
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
