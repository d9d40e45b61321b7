package bus

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/sut"
)

// stopGrace is how long a consumer has to finish its handlers after SIGTERM before SIGKILL,
// unless Config.StopGrace says otherwise.
const stopGrace = 10 * time.Second

// launch starts a consumer through the runner and returns once it has said "ready" on its report
// stream, which the runner hands to the tally; its stderr is logged and its last lines kept for
// error messages.
func (r *run) launch(ctx context.Context) (*sut.Process, error) {
	n := len(r.suts) + 1
	wait := max(min(readyTimeout, time.Until(r.deadline)), time.Millisecond) // 0 would mean the default
	p, err := sut.Start(ctx, sut.Options{
		Name: "consumer (" + r.impl() + ")", Argv: r.argv, Env: r.env,
		Ready:  sut.Ready{Stream: true, Timeout: wait},
		Stream: r.t.read,
		OnLine: func(line string) { r.cfg.Log.Info("consumer", "start", n, "stderr", line) },
		Log:    r.cfg.Log,
		// The impl's stop.signal and stop.timeout, else SIGTERM and stopGrace.
		StopSignal: r.cfg.StopSignal, StopGrace: cmp.Or(r.cfg.StopGrace, stopGrace),
	})
	if err != nil {
		return nil, err
	}
	r.suts = append(r.suts, p)
	return p, nil
}

// sutEnv builds the consumer's environment: iobench's own without any IOBENCH_ variable
// (sut.Environ), plus the IOBENCH_* variables of this run (internal/env).
func sutEnv(c *Config, brokerKind string) []string {
	broker := env.AMQPURL
	if brokerKind == "nats" {
		broker = env.NATSURL
	}
	vars := sut.Environ(
		broker+"="+c.BrokerURL,
		env.DatabaseURL+"="+c.DatabaseURL,
		fmt.Sprintf("%s=%d", env.Concurrency, c.Concurrency),
		fmt.Sprintf("%s=%d", env.Prefetch, c.Prefetch),
		env.Mode+"="+c.Mode,
		env.BusProfile+"="+c.Profile,
	)
	for _, kv := range c.SUTEnv {
		vars = sut.SetEnv(vars, kv)
	}
	return vars
}

// sutArgv returns the consumer's command line: c.SUT, or this executable's "serve bus".
func sutArgv(c *Config) ([]string, error) {
	if len(c.SUT) > 0 {
		return c.SUT, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the iobench executable to start the consumer: %w", err)
	}
	return []string{exe, "serve", "bus",
		"--mode", c.Mode,
		"--concurrency", fmt.Sprint(c.Concurrency),
		"--prefetch", fmt.Sprint(c.Prefetch),
		"--profile", c.Profile,
	}, nil
}
