package bus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// The protocol's modes, profiles, queues and defaults (package busproto), by their names here.
const (
	ModeSync           = busproto.ModeSync
	ModeAsync          = busproto.ModeAsync
	ProfileSeed        = busproto.ProfileSeed
	ProfileDurable     = busproto.ProfileDurable
	CommandsQueue      = busproto.CommandsQueue
	EventsQueue        = busproto.EventsQueue
	DefaultConcurrency = busproto.DefaultConcurrency
	DefaultPrefetch    = busproto.DefaultPrefetch
)

// Sentinel errors that callers branch on (the CLI maps them to exit codes).
var (
	// ErrBadInput marks an error in the configuration or the environment that the user must fix
	// (bad flag, unreachable service, wrong credentials, a foreign customers table).
	ErrBadInput = fail.ErrBadInput
	// ErrVerify marks a run whose accounting failed: commands lost, duplicate rows, events unseen.
	// Run returns the record alongside it.
	ErrVerify = errors.New("verification failed")
	// ErrSUT marks a consumer that died or stalled during the run (not by an injected fault).
	ErrSUT = errors.New("consumer failed")
)

// Fault is the bus run's one fault (package fault) and when it strikes: after At of the
// commands have been handled.
type Fault = fault.Spec

// The bus's faults: kill-sut, and restart-rabbitmq (restart-broker, its old name).
const (
	FaultNone    fault.Kind = ""
	FaultKillSUT            = fault.KillSUT
)

// RestartBroker is restart-rabbitmq@50% (restart-broker@50%): a clean stop and start of the
// broker, durable profile only.
var RestartBroker = Fault{Kind: fault.Restart, Service: "rabbitmq", At: 0.5}

// RestartPostgres is restart-postgres@50%: a clean stop and start of PostgreSQL, which keeps
// what was committed.
var RestartPostgres = Fault{Kind: fault.Restart, Service: "postgres", At: 0.5}

// isDBRestart says whether f restarts the database.
func isDBRestart(f Fault) bool {
	return f.Kind == fault.Restart && f.Service == RestartPostgres.Service
}

// isBrokerRestart says whether f restarts the broker.
func isBrokerRestart(f Fault) bool {
	return f.Kind == fault.Restart && f.Service == RestartBroker.Service
}

// ParseFault reads the bus run's fault (fault.Parse): kill-sut@P% or restart-rabbitmq@P%
// (restart-broker@P%) or restart-postgres@P%, the point 50% when left out; "" is none. A bus
// run takes one fault.
func ParseFault(s string) (Fault, error) {
	specs, err := fault.ParseAll([]string{s})
	switch {
	case err != nil || len(specs) == 0:
		return Fault{}, err
	case len(specs) > 1:
		return Fault{}, fmt.Errorf("%w: --fault %s: a bus run takes one fault; give one of them", ErrBadInput, fault.Join(specs))
	}
	if err := fault.Check(specs, fault.Run{Workload: "bus", Restart: []string{RestartBroker.Service, RestartPostgres.Service}}); err != nil {
		return Fault{}, err
	}
	return specs[0], nil
}

// Service is a backing service of a run: what the record says about it, how to read its processes'
// cost, and how to restart it for the restart-broker fault.
type Service struct {
	Name    string // rabbitmq, postgres, nats, sqlite
	Kind    string // local, embedded or external
	Version string
	URL     string // redacted, for the record
	// Roots returns the roots of the service's process trees now (those iobench started for it);
	// nil when they are unknown or inside iobench.
	Roots func() []int
	// Restart stops and starts the service on the same address and data; nil when iobench
	// cannot (an external service).
	Restart func(ctx context.Context) error
}

// Config is one bus run.
type Config struct {
	N           int    // commands to send
	Mode        string // ModeSync or ModeAsync: the consumer variant's (UseImpl)
	Concurrency int    // passed to the consumer
	Prefetch    int    // passed to the consumer
	Profile     string // ProfileSeed or ProfileDurable
	BrokerURL   string // amqp:// or nats://
	DatabaseURL string // postgres:// or sqlite://
	Broker      Service
	Database    Service
	Fault       Fault
	// Inject delays the answers of these services to the consumer through relays of their own
	// (inject.go); iobench's own connections go direct.
	Inject []inject.Spec
	// Topology is where commands and events go, as the consumer's manifest declares it; zero
	// means DefaultTopology, the built-in consumer's.
	Topology Topology
	// Timeout bounds the whole run (fill to verification); zero means 10 minutes.
	Timeout time.Duration
	// Consumer is the consumer under test (UseImpl sets it, with Impl, Variant, Expect, Mode and
	// RestartBroker): Run starts it from its manifest, its URLs and settings in the environment
	// (IOBENCH_AMQP_URL or IOBENCH_NATS_URL, IOBENCH_DATABASE_URL, IOBENCH_CONCURRENCY,
	// IOBENCH_PREFETCH, IOBENCH_BUS_PROFILE; its variant's IOBENCH_MODE), never the command line.
	Consumer workload.Target
	// Impl names the consumer in messages and the record. Variant and Expect are its variant and
	// the seed flaws that variant reproduces, for the record.
	Impl    string
	Variant string
	Expect  []string
	// RestartBroker lists the variants of Impl that survive a broker restart (its manifest's
	// restart_broker); Check refuses restart-broker for any other variant.
	RestartBroker []string
	// RestartPostgres lists the variants that survive a PostgreSQL restart (restart_postgres);
	// Check refuses restart-postgres for any other variant.
	RestartPostgres []string
	// SUTEnv (KEY=VALUE) is added to the consumer's environment (tests use it).
	SUTEnv []string
	// Progress receives a live progress line, rewritten in place every second; nil for none.
	Progress io.Writer
	// Command is the command line recorded in the result.
	Command []string
	// Log receives the consumer's stderr and other diagnostics; nil discards them.
	Log *slog.Logger
}

// DefaultTimeout bounds a run whose Config has no Timeout.
const DefaultTimeout = 10 * time.Minute

// Check validates the settings that need no service (count, mode, profile, concurrency,
// prefetch, fault) and fills defaults, so that a command can refuse bad flags before it starts
// any server. Run calls it again.
func (c *Config) Check() error {
	if c.N <= 0 {
		return fmt.Errorf("%w: -n %d; send at least 1 command", ErrBadInput, c.N)
	}
	if c.Mode == "" {
		c.Mode = ModeAsync
	}
	if c.Profile == "" {
		c.Profile = ProfileSeed
	}
	if err := busproto.CheckModeProfile(c.Mode, c.Profile); err != nil {
		return err
	}
	if err := busproto.CheckConcurrency(c.Mode, c.Concurrency, c.Prefetch); err != nil {
		return err
	}
	// What runs is what the record says: a sync consumer handles one message at a time.
	c.Concurrency, c.Prefetch = busproto.Shape(c.Mode, c.Concurrency, c.Prefetch)
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if err := c.checkRestartBroker(); err != nil {
		return err
	}
	if isDBRestart(c.Fault) && c.fromManifest() && !slices.Contains(c.RestartPostgres, c.Variant) {
		return fmt.Errorf("%w: --fault %s: %s:%s does not survive a PostgreSQL restart (its manifest's restart_postgres does not list it); use kill-sut@50%% or a variant that does",
			ErrBadInput, c.Fault, c.Impl, c.Variant)
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return nil
}

// checkRestartBroker refuses restart-broker outside the durable profile, and for a variant of an
// impl that does not survive a broker restart, naming the variants that do.
func (c *Config) checkRestartBroker() error {
	switch {
	case !isBrokerRestart(c.Fault):
		return nil
	case c.Profile != ProfileDurable:
		return fmt.Errorf("%w: --fault restart-broker loses transient messages by design; use it with --profile durable", ErrBadInput)
	case !c.fromManifest() || slices.Contains(c.RestartBroker, c.Variant):
		return nil
	case len(c.RestartBroker) == 0:
		return fmt.Errorf("%w: --fault restart-broker: no variant of %s survives a broker restart (its manifest's restart_broker lists none); use kill-sut@50%% or another impl", ErrBadInput, c.Impl)
	}
	names := make([]string, len(c.RestartBroker))
	for i, v := range c.RestartBroker {
		names[i] = c.Impl + ":" + v
	}
	return fmt.Errorf("%w: --fault restart-broker: %s:%s does not survive a broker restart; use %s (its manifest's restart_broker)",
		ErrBadInput, c.Impl, c.Variant, strings.Join(names, " or "))
}

// fromManifest says whether the consumer is an impl of impls/, whose manifest says which of its
// variants survive a broker restart; a command of the user's (--sut-cmd) has none to ask.
func (c *Config) fromManifest() bool {
	return c.Consumer.Inst != nil && c.Consumer.Inst.Manifest.Dir != ""
}

// validate is Check plus what needs the services: URLs and, for restart-broker, a broker that
// iobench can restart.
func (c *Config) validate() error {
	if err := c.Check(); err != nil {
		return err
	}
	bkind, err := brokerKind(c.BrokerURL)
	if err != nil {
		return err
	}
	dkind, err := dbKind(c.DatabaseURL)
	if err != nil {
		return err
	}
	if c.Topology.Queue == "" {
		c.Topology = DefaultTopology
	}
	if err := c.Topology.check(c.Impl, bkind, dkind, c.Profile); err != nil {
		return err
	}
	if isDBRestart(c.Fault) && (dkind != "postgres" || c.Database.Restart == nil) {
		return fmt.Errorf("%w: --fault %s needs a PostgreSQL that iobench started and can restart (this run's or the one of 'iobench services up'), not %s %s; drop the database URL",
			ErrBadInput, c.Fault, nonEmpty(c.Database.Kind, "an external"), nonEmpty(c.Database.Name, "database"))
	}
	if isBrokerRestart(c.Fault) && c.Broker.Restart == nil {
		return fmt.Errorf("%w: --fault restart-broker needs a broker that iobench started and can restart (this run's or the one of 'iobench services up'), not %s %s; drop the broker URL",
			ErrBadInput, nonEmpty(c.Broker.Kind, "an external"), nonEmpty(c.Broker.Name, "broker"))
	}
	if c.Consumer.Inst == nil {
		return errors.New("bus: no consumer; call UseImpl")
	}
	return nil
}

// brokerKind returns "amqp" or "nats" from a URL's scheme.
func brokerKind(raw string) (string, error) {
	switch scheme(raw) {
	case "amqp", "amqps":
		return "amqp", nil
	case "nats":
		return "nats", nil
	case "":
		return "", fmt.Errorf("%w: no broker URL; pass --amqp-url or --nats-url", ErrBadInput)
	}
	return "", fmt.Errorf("%w: broker URL %s: use amqp:// or nats://", ErrBadInput, service.Redact(raw))
}

// dbKind returns "postgres" or "sqlite" from a URL's scheme.
func dbKind(raw string) (string, error) {
	switch scheme(raw) {
	case "postgres", "postgresql":
		return "postgres", nil
	case "sqlite":
		return "sqlite", nil
	case "":
		return "", fmt.Errorf("%w: no database URL; pass --database-url", ErrBadInput)
	}
	return "", fmt.Errorf("%w: database URL %s: use postgres:// or sqlite://PATH", ErrBadInput, service.Redact(raw))
}

// scheme returns the lower-cased scheme of a URL ("sqlite:x.db" has one too), or "".
func scheme(raw string) string {
	s, _, ok := strings.Cut(raw, ":")
	if !ok || s == "" || strings.ContainsAny(s, "/@ ") {
		return ""
	}
	return strings.ToLower(s)
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
