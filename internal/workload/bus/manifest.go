package bus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/impl"
)

// Manifest is what a consumer impl's manifest declares under workloads.bus: its queues (the
// command queue, then the durable profile's event queue if it has that profile), the exchange its
// commands go through (none: the default exchange), the brokers and databases it speaks, and the
// variants that survive a broker restart (restart_broker: they reconnect and consume again).
type Manifest struct {
	Queues []string `yaml:"queues"`
	// Exchange is the named exchange the impl's commands (and, as the seed had it, its events)
	// go through, bound to the first queue; nil means the default exchange (routing key = queue
	// name).
	Exchange *Exchange `yaml:"exchange"`
	// Brokers and Databases are the URL schemes the impl can talk to (amqp, nats; postgres,
	// sqlite); empty means defaultBrokers, defaultDatabases.
	Brokers   []string `yaml:"brokers"`
	Databases []string `yaml:"databases"`
	// RestartBroker names the variants that survive a restart of their broker mid-run;
	// RestartPostgres those that survive one of PostgreSQL (they connect again).
	RestartBroker   []string `yaml:"restart_broker"`
	RestartPostgres []string `yaml:"restart_postgres"`
}

// Exchange is an AMQP exchange an impl publishes to: its name, its type (direct, fanout, topic)
// and the routing key that binds the queue and that publishes carry.
type Exchange struct {
	Name       string `yaml:"name"`
	Type       string `yaml:"type"`
	RoutingKey string `yaml:"routing_key"`
}

// section is the bus's manifest section, registered with the workload.
var section = impl.NewSection("{queues: [...], exchange: {name, type, routing_key}, brokers, databases, restart_broker: [VARIANT...], restart_postgres: [VARIANT...]}",
	checkSection)

// ManifestOf returns the bus section m declares (a zero one when it declares none).
func ManifestOf(m *impl.Manifest) *Manifest {
	s, _ := impl.SectionOf[Manifest](m, Name)
	return s
}

// Exchange types a manifest may name.
var exchangeTypes = []string{"direct", "fanout", "topic"}

// Defaults of a manifest that names no brokers or databases: what the non-Go consumers speak.
var (
	defaultBrokers   = []string{"amqp"}
	defaultDatabases = []string{"postgres"}
)

// checkSection checks a bus section: one or two queues, a usable exchange, known brokers and
// databases, and the variants that survive a broker restart.
func checkSection(m *impl.Manifest, f string, w *Manifest, add impl.ProblemFunc) {
	switch {
	case len(w.Queues) == 0:
		add(f+".queues", "missing", "list the queues the impl consumes and publishes to")
	case len(w.Queues) > 2:
		add(f+".queues", fmt.Sprintf("%d queues", len(w.Queues)), "list the command queue, then the durable profile's event queue if the impl has that profile")
	}
	if x := w.Exchange; x != nil {
		switch {
		case x.Name == "":
			add(f+".exchange.name", "missing", "name the exchange, or drop exchange: to use the default one")
		case strings.HasPrefix(x.Name, "amq."):
			add(f+".exchange.name", fmt.Sprintf("%q is reserved by the broker", x.Name), "use the seed's name")
		}
		if !slices.Contains(exchangeTypes, x.Type) {
			add(f+".exchange.type", fmt.Sprintf("%q", x.Type), "use one of "+strings.Join(exchangeTypes, ", "))
		}
		if len(w.Brokers) > 0 && slices.Contains(w.Brokers, "nats") {
			add(f+".brokers", "nats with an AMQP exchange", "NATS has no exchanges: drop nats or the exchange")
		}
	}
	for _, b := range w.Brokers {
		if b != "amqp" && b != "nats" {
			add(f+".brokers", fmt.Sprintf("%q", b), "use amqp or nats")
		}
	}
	for _, d := range w.Databases {
		if d != "postgres" && d != "sqlite" {
			add(f+".databases", fmt.Sprintf("%q", d), "use postgres or sqlite")
		}
	}
	checkRestartBroker(m, f, w, add)
	checkVariants(m, f+".restart_postgres", w.RestartPostgres, add)
}

// checkRestartBroker checks restart_broker: declared variants, each once, of an impl with a
// durable profile (a restart keeps only durable queues and persistent messages).
func checkRestartBroker(m *impl.Manifest, f string, w *Manifest, add impl.ProblemFunc) {
	if len(w.RestartBroker) > 0 && len(w.Queues) < 2 {
		add(f+".restart_broker", "no durable profile", "a broker restart keeps only the durable profile's messages: list its event queue in queues, or drop restart_broker")
	}
	checkVariants(m, f+".restart_broker", w.RestartBroker, add)
}

// checkVariants checks a list of variants under field: declared ones, each once.
func checkVariants(m *impl.Manifest, field string, list []string, add impl.ProblemFunc) {
	for i, v := range list {
		ff := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !slices.Contains(m.VariantNames(), v):
			add(ff, fmt.Sprintf("unknown variant %q", v), "use one of "+strings.Join(m.VariantNames(), ", "))
		case slices.Index(list, v) != i:
			add(ff, fmt.Sprintf("%q listed twice", v), "list each variant once")
		}
	}
}

// Topology is where a run's commands and events go: the command queue, bound to a named
// exchange (or reached through the default one), and the durable profile's event queue, reached
// through the default exchange. In the seed profile events take the commands' way, to the tail
// of the command queue.
type Topology struct {
	Queue        string // the command queue
	EventQueue   string // the durable profile's event queue; "" when the consumer has no such profile
	Exchange     string // "" for the default exchange
	ExchangeType string // direct, fanout or topic
	RoutingKey   string // binds Queue to Exchange; commands carry it
	Brokers      []string
	Databases    []string
}

// DefaultTopology is the built-in consumer's: the default exchange, queues iobench.bus.commands
// and iobench.bus.events, any broker and database.
var DefaultTopology = Topology{Queue: CommandsQueue, EventQueue: EventsQueue,
	Brokers: []string{"amqp", "nats"}, Databases: []string{"postgres", "sqlite"}}

// TopologyOf returns the topology a manifest declares for the bus.
func TopologyOf(m *impl.Manifest) Topology {
	w := ManifestOf(m)
	t := Topology{Brokers: w.Brokers, Databases: w.Databases}
	if len(w.Queues) > 0 {
		t.Queue = w.Queues[0]
	}
	if len(w.Queues) > 1 {
		t.EventQueue = w.Queues[1]
	}
	if x := w.Exchange; x != nil {
		t.Exchange, t.ExchangeType, t.RoutingKey = x.Name, x.Type, x.RoutingKey
	}
	if len(t.Brokers) == 0 {
		t.Brokers = defaultBrokers
	}
	if len(t.Databases) == 0 {
		t.Databases = defaultDatabases
	}
	return t
}

// queues returns the queues a run of this profile uses.
func (t Topology) queues(profile string) []string {
	if profile == ProfileDurable {
		return []string{t.Queue, t.EventQueue}
	}
	return []string{t.Queue}
}

// String describes the topology for the record, e.g. "fanout exchange messages -> queue messages".
func (t Topology) String() string {
	s := "queue " + t.Queue
	if t.Exchange != "" {
		s = fmt.Sprintf("%s exchange %s (key %q) -> %s", t.ExchangeType, t.Exchange, t.RoutingKey, s)
	}
	return s
}

// check refuses a topology the run's broker, database or profile cannot serve, naming what to
// install or change.
func (t Topology) check(impl, bkind, dkind, profile string) error {
	switch {
	case !slices.Contains(t.Brokers, bkind) && bkind == "nats":
		return notInstalled("%s speaks AMQP only and the broker is NATS; install RabbitMQ (scripts/install-services.sh, or apt-get install rabbitmq-server) or pass --amqp-url", impl)
	case !slices.Contains(t.Brokers, bkind):
		return fmt.Errorf("%w: %s does not speak %s; use --broker %s", ErrBadInput, impl, bkind, t.Brokers[0])
	case !slices.Contains(t.Databases, dkind) && dkind == "sqlite":
		return notInstalled("%s needs PostgreSQL and the database is SQLite; install PostgreSQL (scripts/install-services.sh, or apt-get install postgresql) or pass --database-url postgres://...", impl)
	case !slices.Contains(t.Databases, dkind):
		return fmt.Errorf("%w: %s does not use %s; use --db %s", ErrBadInput, impl, dkind, t.Databases[0])
	case profile == ProfileDurable && t.EventQueue == "":
		return fmt.Errorf("%w: %s has no durable profile (its manifest declares no event queue); use --profile seed", ErrBadInput, impl)
	case t.Queue == "":
		return fmt.Errorf("%w: no command queue", ErrBadInput)
	}
	return nil
}
