package bus

import (
	"context"
	"fmt"
	"slices"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
)

// injectUses are the services a run uses as --inject names them, with the variable in which the
// consumer gets each one's address: none for a kind its manifest does not declare.
func (r *run) injectUses() []inject.Use {
	t := r.cfg.Topology
	broker := inject.Use{Role: "broker", Kind: map[string]string{"amqp": "rabbitmq"}[r.bkind]}
	if broker.Kind == "" {
		broker.Kind = r.bkind
	}
	if r.bkind == "amqp" && slices.Contains(t.Brokers, "amqp") {
		broker.Var = env.AMQPURL
	}
	db := inject.Use{Role: "database", Kind: r.dkind}
	if r.dkind == "postgres" && slices.Contains(t.Databases, "postgres") {
		db.Var = env.DatabaseURL
	}
	return []inject.Use{db, broker}
}

// startProxies puts a relay in front of each service cfg.Inject names and points the consumer's
// variables (r.env) at them; iobench's own connections keep cfg's URLs.
func (r *run) startProxies(ctx context.Context) (err error) {
	r.proxies, err = inject.Open(ctx, r.cfg.Inject, r.injectUses(), r.cfg.Impl, r.env,
		inject.Options{Executable: r.cfg.Consumer.Inst.Executable, Log: r.cfg.Log})
	return err
}

// markProxies starts the relays' counts as the consumer becomes ready.
func (r *run) markProxies() {
	if err := r.proxies.Mark(); err != nil {
		r.warnings = append(r.warnings, fmt.Sprintf("the injected latency's counts could not be started: %v", err))
	}
}

// recordProxies adds what the relays achieved to rec: the inject section, per command handled,
// and their processes; the injection among the parameters.
func (r *run) recordProxies(rec *result.Record) {
	r.proxies.RecordRun(rec, r.bus.CommandsHandled, rec.Duration.Std(), r.cfg.Inject)
	inject.MarkCase(rec) // the bus sets no case of its own
}
