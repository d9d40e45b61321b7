package suite

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload/bus"
)

// busServices are the broker and database shared by the bus runs that ask for the same ones.
type busServices struct {
	s   *bus.Services
	err error
}

func (b *busServices) close() {
	if b.s != nil {
		b.s.Close(context.Background())
	}
}

// bus runs one bus scenario run on services started once per suite. The consumer is the run's
// impl: its command line, its start.env and its variant's name, mode and env. (Until the bus runs
// on the one runner, it starts the consumer itself; the manifest's ready and stop are the bus's
// own: the report stream's "ready" line, SIGTERM.)
func (st *state) bus(ctx context.Context, r scenario.Run) (*result.Record, error) {
	s, err := st.target(ctx, r)
	if err != nil {
		return nil, err
	}
	svc, err := st.busServices(ctx, r)
	if err != nil {
		return nil, err
	}
	cfg := bus.Config{N: 10000, Mode: s.variant.Mode, Concurrency: bus.DefaultConcurrency, Prefetch: bus.DefaultPrefetch,
		Command: st.opts.Command, Progress: st.opts.Progress, SUT: s.inst.Command(), SUTEnv: busEnv(s)}
	if v, ok := r.Params["n"].(int64); ok {
		cfg.N = int(v)
	}
	if v, ok := r.Params["concurrency"].(int64); ok {
		cfg.Concurrency = int(v)
	}
	if v, ok := r.Params["prefetch"].(int64); ok {
		cfg.Prefetch = int(v)
	}
	if v, ok := r.Params["profile"].(string); ok {
		cfg.Profile = v
	}
	if v, ok := r.Params["timeout"].(time.Duration); ok {
		cfg.Timeout = v
	}
	if v, ok := r.Params["fault"].(string); ok {
		if cfg.Fault, err = bus.ParseFault(v); err != nil {
			return nil, err
		}
	}
	if cfg.Mode == bus.ModeSync {
		cfg.Concurrency, cfg.Prefetch = 1, 1
	}
	svc.Apply(&cfg)
	rec, err := bus.Run(ctx, cfg)
	if rec != nil {
		s.label(rec)
	}
	return rec, err
}

// busEnv is what the consumer gets beside the bus's own variables: the manifest's start.env and
// the variant's name, mode and env.
func busEnv(s target) []string {
	var vars []string
	for k, v := range s.inst.VariantEnv(s.variant) {
		vars = append(vars, k+"="+v)
	}
	sort.Strings(vars)
	return vars
}

func (st *state) busServices(ctx context.Context, r scenario.Run) (*bus.Services, error) {
	want := busServicesConfig(r.Services)
	key := want.Broker + "|" + want.DB + "|" + want.AMQPURL + want.NATSURL + "|" + want.DatabaseURL
	if st.services == nil {
		st.services = map[string]*busServices{}
	}
	if s, ok := st.services[key]; ok {
		return s.s, s.err
	}
	s, err := bus.StartServices(ctx, want)
	st.services[key] = &busServices{s: s, err: err}
	return s, err
}

// busServicesConfig maps a scenario's services onto the bus's choice: embedded is NATS and
// SQLite, local is RabbitMQ and PostgreSQL, auto lets the bus choose, a URL is used as is.
func busServicesConfig(svcs map[string]scenario.Service) bus.ServicesConfig {
	var c bus.ServicesConfig
	b, d := svcs["broker"], svcs["database"]
	switch b.Kind {
	case scenario.ServiceEmbedded:
		c.Broker = "nats"
	case scenario.ServiceLocal:
		c.Broker = "amqp"
	case scenario.ServiceExternal:
		if strings.HasPrefix(b.URL, "nats:") {
			c.NATSURL = b.URL
		} else {
			c.AMQPURL = b.URL
		}
	}
	switch d.Kind {
	case scenario.ServiceEmbedded:
		c.DB = "sqlite"
	case scenario.ServiceLocal:
		c.DB = "postgres"
	case scenario.ServiceExternal:
		c.DatabaseURL = d.URL
	}
	return c
}
