package bus

import (
	"context"
	"errors"
	"fmt"

	"github.com/iobench/iobench/internal/service"
)

// ServicesConfig says which broker and database a run wants. Empty kinds are chosen: a URL given
// here or in the environment (IOBENCH_AMQP_URL, IOBENCH_NATS_URL, IOBENCH_DATABASE_URL) first,
// then RabbitMQ and PostgreSQL when installed (started by iobench), else embedded NATS and a
// SQLite file in a temporary directory.
type ServicesConfig struct {
	Broker      string // "amqp", "nats" or "" to choose
	DB          string // "postgres", "sqlite" or "" to choose
	AMQPURL     string
	NATSURL     string
	DatabaseURL string
	Options     service.Options // state directory and logger for the servers iobench starts
}

// Services are the broker and database of one or more runs. Close stops what was started.
type Services struct {
	BrokerURL   string
	DatabaseURL string
	Broker      Service
	Database    Service
	owned       []*service.Instance
}

// BrokerRole is the bus's broker: RabbitMQ started by iobench, or NATS with JetStream inside it.
var BrokerRole = service.Role{Name: "broker", Local: "rabbitmq", Embedded: "nats",
	Schemes: map[string]string{"amqp": "rabbitmq", "amqps": "rabbitmq", "nats": "nats"}}

// DatabaseRole is the bus's database: PostgreSQL started by iobench, or a SQLite file.
var DatabaseRole = service.Role{Name: "database", Local: "postgres", Embedded: "sqlite",
	Schemes: map[string]string{"postgres": "postgres", "postgresql": "postgres", "sqlite": "sqlite"}}

// brokers maps the --broker flag to its service.
var brokers = map[string]string{"amqp": "rabbitmq", "nats": "nats"}

// restarter is implemented by service instances that can stop and start again on the same
// address and data (what --fault restart-broker needs).
type restarter interface {
	Restart(ctx context.Context) error
}

// StartServices finds or starts the services cfg asks for. On error nothing is left running.
func StartServices(ctx context.Context, cfg ServicesConfig) (_ *Services, err error) {
	s := &Services{}
	defer func() {
		if err != nil {
			s.Close(context.WithoutCancel(ctx))
		}
	}()
	if err := s.broker(ctx, cfg); err != nil {
		return nil, err
	}
	if err := s.database(ctx, cfg); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Services) broker(ctx context.Context, cfg ServicesConfig) error {
	kind := cfg.Broker
	switch {
	case cfg.AMQPURL != "" && cfg.NATSURL != "":
		return fmt.Errorf("%w: both --amqp-url and --nats-url given; the bus uses one broker", ErrBadInput)
	case kind == "nats" && cfg.AMQPURL != "", kind == "amqp" && cfg.NATSURL != "":
		return fmt.Errorf("%w: --broker %s does not match the URL given; drop one of them", ErrBadInput, kind)
	case kind != "" && kind != "amqp" && kind != "nats":
		return fmt.Errorf("%w: --broker %q; use amqp or nats", ErrBadInput, kind)
	}
	given := cfg.AMQPURL + cfg.NATSURL
	if given != "" {
		k, err := brokerKind(given)
		if err != nil {
			return err
		}
		if cfg.AMQPURL != "" && k != "amqp" || cfg.NATSURL != "" && k != "nats" {
			return fmt.Errorf("%w: broker URL %s does not match its flag", ErrBadInput, service.Redact(given))
		}
	}
	inst, err := service.Resolve(ctx, BrokerRole, service.Choice{URL: given, Service: brokers[kind]}, cfg.Options)
	if err != nil {
		return err
	}
	s.adopt(inst)
	s.BrokerURL, s.Broker = inst.URL, fromInstance(inst)
	return nil
}

func (s *Services) database(ctx context.Context, cfg ServicesConfig) error {
	kind := cfg.DB
	if kind != "" && kind != "postgres" && kind != "sqlite" {
		return fmt.Errorf("%w: --db %q; use postgres or sqlite", ErrBadInput, kind)
	}
	given := cfg.DatabaseURL
	if given != "" {
		k, err := dbKind(given)
		if err != nil {
			return err
		}
		if kind != "" && kind != k {
			return fmt.Errorf("%w: --db %s does not match --database-url %s", ErrBadInput, kind, service.Redact(given))
		}
	}
	inst, err := service.Resolve(ctx, DatabaseRole, service.Choice{URL: given, Service: kind}, cfg.Options)
	if err != nil {
		return err
	}
	s.adopt(inst)
	s.DatabaseURL, s.Database = inst.URL, fromInstance(inst)
	return nil
}

func (s *Services) adopt(inst *service.Instance) {
	if inst.Owned {
		s.owned = append(s.owned, inst)
	}
}

// fromInstance describes a service instance for a run.
func fromInstance(inst *service.Instance) Service {
	s := Service{Name: inst.Name, Kind: string(inst.Kind), Version: inst.Version, URL: inst.Redacted()}
	if inst.Kind == service.KindLocal {
		s.Roots = inst.RootPIDs
	}
	if r, ok := any(inst).(restarter); ok && inst.Kind == service.KindLocal {
		s.Restart = r.Restart
	}
	return s
}

// Apply points cfg at the services.
func (s *Services) Apply(cfg *Config) {
	cfg.BrokerURL, cfg.DatabaseURL = s.BrokerURL, s.DatabaseURL
	cfg.Broker, cfg.Database = s.Broker, s.Database
}

// Close stops the servers StartServices started (and removes the embedded SQLite file).
func (s *Services) Close(ctx context.Context) error {
	var errs []error
	for i := len(s.owned) - 1; i >= 0; i-- {
		errs = append(errs, s.owned[i].Stop(ctx))
	}
	s.owned = nil
	return errors.Join(errs...)
}
