package bus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	tmp         string
}

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
		s.BrokerURL = given
		s.Broker = Service{Name: map[string]string{"amqp": "rabbitmq", "nats": "nats"}[k], Kind: string(service.KindExternal), URL: service.Redact(given)}
		return nil
	}
	if kind == "" {
		switch {
		case os.Getenv(service.EnvName("rabbitmq")) != "":
			kind = "amqp"
		case os.Getenv(service.EnvName("nats")) != "":
			kind = "nats"
		case service.Installed("rabbitmq") == nil:
			kind = "amqp"
		default:
			kind = "nats"
		}
	}
	name := map[string]string{"amqp": "rabbitmq", "nats": "nats"}[kind]
	inst, err := service.Ensure(ctx, name, cfg.Options)
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
	if given == "" {
		if env := os.Getenv(service.EnvName("postgres")); env != "" {
			if k, err := dbKind(env); err == nil && k == "sqlite" && kind != "postgres" {
				given = env // the service manager knows PostgreSQL only; a SQLite URL is used as is
			}
		}
	}
	if given != "" {
		k, err := dbKind(given)
		if err != nil {
			return err
		}
		if kind != "" && kind != k {
			return fmt.Errorf("%w: --db %s does not match --database-url %s", ErrBadInput, kind, service.Redact(given))
		}
		s.DatabaseURL = given
		s.Database = Service{Name: k, Kind: string(service.KindExternal), URL: service.Redact(given)}
		return nil
	}
	if kind == "" {
		if os.Getenv(service.EnvName("postgres")) != "" || service.Installed("postgres") == nil {
			kind = "postgres"
		} else {
			kind = "sqlite"
		}
	}
	if kind == "sqlite" {
		dir, err := os.MkdirTemp("", "iobench-bus-")
		if err != nil {
			return fmt.Errorf("sqlite: cannot create a temporary directory: %w", err)
		}
		s.tmp = dir
		path := filepath.Join(dir, "bus.db")
		s.DatabaseURL = "sqlite://" + path
		s.Database = Service{Name: "sqlite", Kind: string(service.KindEmbedded), URL: s.DatabaseURL}
		return nil
	}
	inst, err := service.Ensure(ctx, "postgres", cfg.Options)
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
		s.PIDs = inst.PIDs
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

// Close stops the servers StartServices started and removes the temporary SQLite file.
func (s *Services) Close(ctx context.Context) error {
	var errs []error
	for i := len(s.owned) - 1; i >= 0; i-- {
		errs = append(errs, s.owned[i].Stop(ctx))
	}
	s.owned = nil
	if s.tmp != "" {
		errs = append(errs, os.RemoveAll(s.tmp))
		s.tmp = ""
	}
	return errors.Join(errs...)
}
