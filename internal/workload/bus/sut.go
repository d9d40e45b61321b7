package bus

import (
	"context"
	"strconv"
	"strings"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
)

// launch starts the consumer from its manifest (impl.Installation.Start: command line,
// environment, stop.signal and stop.timeout) and returns once it has said "ready" on its report
// stream, which the start hands to the tally, within its ready.timeout and the run's deadline;
// its stderr is logged and its last lines kept for error messages.
func (r *run) launch(ctx context.Context) (*impl.Process, error) {
	n := len(r.suts) + 1
	wait, cancel := context.WithDeadline(ctx, r.deadline)
	defer cancel()
	c := r.cfg.Consumer
	p, err := c.Inst.Start(wait, impl.StartOptions{
		Variant: c.Variant.Name, Env: r.env, Stream: r.t.read,
		OnLine: func(line string) { r.cfg.Log.Info("consumer", "start", n, "stderr", line) },
	})
	if err != nil {
		return nil, err
	}
	r.suts = append(r.suts, p)
	return p, nil
}

// sutEnv is what the run gives the consumer beside its manifest's environment (its variant's
// IOBENCH_MODE among it): the IOBENCH_* variables of this run (internal/env), then c.SUTEnv.
func sutEnv(c *Config, brokerKind string) map[string]string {
	broker := env.AMQPURL
	if brokerKind == "nats" {
		broker = env.NATSURL
	}
	vars := map[string]string{
		broker:          c.BrokerURL,
		env.DatabaseURL: c.DatabaseURL,
		env.Concurrency: strconv.Itoa(c.Concurrency),
		env.Prefetch:    strconv.Itoa(c.Prefetch),
		env.BusProfile:  c.Profile,
	}
	for _, kv := range c.SUTEnv {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return vars
}
