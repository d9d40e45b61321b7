package publish

import (
	"context"
	"fmt"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
)

// injectUses is the one service a publisher uses: RabbitMQ, whose URL every impl gets in
// IOBENCH_AMQP_URL.
var injectUses = []inject.Use{{Role: BrokerRole.Name, Kind: "rabbitmq", Var: env.AMQPURL}}

// injectSpecs reads the run's inject param; the built-in publisher runs in iobench's own
// process, so only an impl takes one.
func injectSpecs(params map[string]any, isImpl bool) ([]inject.Spec, error) {
	specs, err := inject.FromParams(params)
	switch {
	case err != nil:
		return nil, err
	case len(specs) > 0 && !isImpl:
		return nil, badInput("--inject %s: the built-in publisher runs inside iobench, where no relay can sit; give --impl, e.g. --impl go-publisher", inject.Join(specs))
	}
	if _, err := inject.Resolve(specs, injectUses, "the impl"); err != nil {
		return nil, err // RabbitMQ is the only service of a publish run
	}
	return specs, nil
}

// startProxies puts a relay in front of RabbitMQ when the run asks for one and points vars, the
// impl's environment, at it; iobench's own connections (the queue's preparation, the broker's
// count) go direct.
func (e *external) startProxies(ctx context.Context, vars map[string]string) (err error) {
	e.proxies, err = inject.Open(ctx, e.inject, injectUses, e.inst.Manifest.Name, vars, inject.Options{Executable: e.inst.Executable})
	return err
}

// markProxies starts the relays' counts as the impl is told to begin: its connecting is not
// counted.
func (e *external) markProxies() error {
	if err := e.proxies.Mark(); err != nil {
		return fmt.Errorf("the injected latency's counts could not be started: %w", err)
	}
	return nil
}

// recordProxies adds what the relays achieved to rec, per message the broker accepted, and the
// injection among its parameters.
func (e *external) recordProxies(rec *result.Record, accepted int64) {
	e.proxies.RecordRun(rec, accepted, rec.Duration.Std(), e.inject)
	inject.MarkCase(rec) // publish sets no case of its own
}
