package bus

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impls/gobus"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// Name is the bus workload's id.
const Name = "bus"

func init() {
	workload.Register(workload.Workload{Name: Name, Spec: spec(), Manifest: section, Run: suiteRun, Text: WriteSummary,
		Verified: verified, Flaw: flaw,
		Phases: func(rec *result.Record) []result.Phase {
			if b := Section(rec); b != nil {
				return b.Phases
			}
			return nil
		},
		Series: []string{"fill", "commands", "events", "depth"}, SeriesUnit: "messages/s", Figures: figures(),
		Tables:  []workload.TableFunc{phasesTable, inject.SweepTable, fault.Table},
		Roles:   map[string]service.Role{"broker": BrokerRole, "database": DatabaseRole},
		Command: newCommand, Serve: []func() *cobra.Command{gobus.ServeCommand}})
}

// figures are the bus's own figures for a seed's claims: each phase's mean rate (fill, commands,
// events) and its best 5-second window, what RabbitMQ's chart shows at its peak (fill_chart,
// commands_chart, events_chart).
func figures() map[string]workload.FigureFunc {
	out := map[string]workload.FigureFunc{}
	for _, name := range []string{PhaseFill, PhaseCommands, PhaseEvents} {
		out[name] = phaseFigure(name, func(p result.Phase) float64 { return p.Mean })
		out[name+"_chart"] = phaseFigure(name, func(p result.Phase) float64 { return p.PeakChart })
	}
	return out
}

func phaseFigure(name string, get func(result.Phase) float64) workload.FigureFunc {
	return func(rec *result.Record) (float64, bool) {
		b := Section(rec)
		if b == nil {
			return 0, false
		}
		for _, p := range b.Phases {
			if p.Name == name && get(p) > 0 {
				return get(p), true
			}
		}
		return 0, false
	}
}

func spec() scenario.WorkloadSpec {
	return scenario.WorkloadSpec{
		Params: map[string]scenario.ParamSpec{
			"n":           {Type: scenario.Int, Check: scenario.Positive, Doc: "commands to send"},
			"mode":        {Type: scenario.String, Enum: []string{ModeSync, ModeAsync}, SUT: true, Doc: "consumer mode: sync (one message at a time) or async; picks the impl's first variant of that mode"},
			"concurrency": {Type: scenario.Int, Check: scenario.Positive, SUT: true, Doc: "async: handlers in flight in the consumer"},
			"prefetch":    {Type: scenario.Int, Check: scenario.Positive, SUT: true, Doc: "async: unacked messages the broker may push"},
			"profile":     {Type: scenario.String, Enum: []string{ProfileSeed, ProfileDurable}, SUT: true, Doc: "seed (transient, as in the seed) or durable"},
			"fault":       {Type: scenario.String, Check: checkFault, Doc: "one fault: kill-sut@50%, restart-rabbitmq@50% (restart-broker@50%) or restart-postgres@50%"},
			"timeout":     {Type: scenario.Duration, Check: scenario.PositiveDuration, Doc: "bound on the whole run"},
			inject.Param:  {Type: scenario.String, Check: inject.CheckParam, SUT: true, Doc: "delay a service's answers to the consumer: postgres:latency=5ms[,jitter=200us], several joined by ;"},
		},
		Services: map[string]scenario.ServiceSpec{
			"broker":   {Schemes: BrokerRole.SchemeList(), Doc: "embedded is NATS with JetStream inside iobench, local is RabbitMQ"},
			"database": {Schemes: DatabaseRole.SchemeList(), Doc: "embedded is a SQLite file, local is PostgreSQL"},
		},
		Phases: []string{PhaseFill, PhaseCommands, PhaseEvents},
	}
}

func checkFault(v any) error {
	if s, _ := v.(string); s != "" {
		_, err := ParseFault(s)
		return err
	}
	return nil
}

// suiteRun runs one bus scenario run on services started once per suite, as its services: block
// asks; a run that reproduced only the seed flaws its variant expects is no failure.
func suiteRun(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	rec, err := runOn(ctx, e, r, servicesConfig(r.Services), nil)
	if rec != nil && errors.Is(err, ErrVerify) && FlawReproduced(rec) {
		err = nil // the report shows the run as "seed flaw reproduced"
	}
	return rec, err
}

// runOn runs r on the broker and database sc asks for (steered towards what the consumer speaks,
// Topology.Prefer), started once per suite through e. The consumer is e's target: its command
// line, its start.env and its variant's name, mode and env. Bad settings are refused before any
// service starts.
func runOn(ctx context.Context, e *workload.Env, r scenario.Run, sc ServicesConfig, log *slog.Logger) (*result.Record, error) {
	t, err := e.Target(ctx, r)
	if err != nil {
		return nil, err
	}
	cfg := Config{N: 10000, Concurrency: DefaultConcurrency, Prefetch: DefaultPrefetch, Command: e.Command, Progress: e.Progress, Log: log}
	UseImpl(&cfg, t.Inst, t.Variant)
	if err := paramsInto(&cfg, r.Params); err != nil {
		return nil, err
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if err := cfg.Topology.Prefer(t.Name(), &sc); err != nil {
		return nil, err
	}
	svc, err := sharedServices(ctx, e, sc)
	if err != nil {
		return nil, err
	}
	svc.Apply(&cfg)
	rec, err := Run(ctx, cfg)
	if rec != nil {
		t.Label(rec)
	}
	return rec, err
}

func paramsInto(cfg *Config, p map[string]any) error {
	if v, ok := p["n"].(int64); ok {
		cfg.N = int(v)
	}
	if v, ok := p["concurrency"].(int64); ok {
		cfg.Concurrency = int(v)
	}
	if v, ok := p["prefetch"].(int64); ok {
		cfg.Prefetch = int(v)
	}
	if v, ok := p["profile"].(string); ok {
		cfg.Profile = v
	}
	if v, ok := p["timeout"].(time.Duration); ok {
		cfg.Timeout = v
	}
	specs, err := inject.FromParams(p)
	if err != nil {
		return err
	}
	if err := inject.CheckNames(specs, DatabaseRole.Name, BrokerRole.Name); err != nil {
		return err
	}
	cfg.Inject = specs
	if v, ok := p["fault"].(string); ok {
		f, err := ParseFault(v)
		if err != nil {
			return err
		}
		cfg.Fault = f
	}
	return nil
}

// sharedServices starts the broker and database a run asks for once per suite.
func sharedServices(ctx context.Context, e *workload.Env, want ServicesConfig) (*Services, error) {
	key := Name + "|" + want.Broker + "|" + want.DB + "|" + want.AMQPURL + want.NATSURL + "|" + want.DatabaseURL
	v, err := e.Share(key, func() (any, func(), error) {
		s, err := StartServices(ctx, want)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close(context.Background()) }, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Services), nil
}

// servicesConfig maps a scenario's services onto the bus's choice: embedded is NATS and
// SQLite, local is RabbitMQ and PostgreSQL, auto lets the bus choose, a URL is used as is.
func servicesConfig(svcs map[string]scenario.Service) ServicesConfig {
	b, d := workload.Choice(svcs["broker"]), workload.Choice(svcs["database"])
	c := ServicesConfig{
		Broker:      map[service.Kind]string{service.KindEmbedded: "nats", service.KindLocal: "amqp"}[b.Kind],
		DB:          map[service.Kind]string{service.KindEmbedded: "sqlite", service.KindLocal: "postgres"}[d.Kind],
		DatabaseURL: d.URL,
	}
	if strings.HasPrefix(b.URL, "nats:") {
		c.NATSURL = b.URL
	} else {
		c.AMQPURL = b.URL
	}
	return c
}
