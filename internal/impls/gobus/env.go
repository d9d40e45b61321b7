package gobus

import (
	"fmt"
	"strconv"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// ConsumerConfigFromEnv returns the consumer settings found in the environment (read through
// getenv, e.g. os.Getenv), with defaults for what is unset: async mode, the seed profile,
// concurrency 80 and prefetch 100. Report and Log are left for the caller.
func ConsumerConfigFromEnv(getenv func(string) string) (ConsumerConfig, error) {
	c := ConsumerConfig{
		Mode:        or(getenv(env.Mode), busproto.ModeAsync),
		Profile:     or(getenv(env.BusProfile), busproto.ProfileSeed),
		Concurrency: busproto.DefaultConcurrency,
		Prefetch:    busproto.DefaultPrefetch,
		BrokerURL:   or(getenv(env.AMQPURL), getenv(env.NATSURL)),
		DatabaseURL: getenv(env.DatabaseURL),
	}
	for _, v := range []struct {
		name string
		dst  *int
	}{{env.Concurrency, &c.Concurrency}, {env.Prefetch, &c.Prefetch}} {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return c, fmt.Errorf("%w: %s=%q is not a number", fail.ErrBadInput, v.name, s)
			}
			*v.dst = n
		}
	}
	return c, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
