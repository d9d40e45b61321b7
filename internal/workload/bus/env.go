package bus

import (
	"fmt"
	"strconv"
)

// Environment variables through which the load side hands a consumer its settings: DESIGN §5.2's
// IOBENCH_AMQP_URL or IOBENCH_NATS_URL, IOBENCH_DATABASE_URL, IOBENCH_CONCURRENCY and
// IOBENCH_PREFETCH, plus the bus's own mode and profile.
const (
	EnvAMQPURL     = "IOBENCH_AMQP_URL"
	EnvNATSURL     = "IOBENCH_NATS_URL"
	EnvDatabaseURL = "IOBENCH_DATABASE_URL"
	EnvConcurrency = "IOBENCH_CONCURRENCY"
	EnvPrefetch    = "IOBENCH_PREFETCH"
	EnvMode        = "IOBENCH_MODE"
	EnvProfile     = "IOBENCH_BUS_PROFILE"
)

// Defaults of the consumer, as in seed 1's service-bus (concurrency 80, prefetch 100).
const (
	DefaultConcurrency = 80
	DefaultPrefetch    = 100
)

// ConsumerConfigFromEnv returns the consumer settings found in the environment (read through
// getenv, e.g. os.Getenv), with defaults for what is unset: async mode, the seed profile,
// concurrency 80 and prefetch 100. Report and Log are left for the caller.
func ConsumerConfigFromEnv(getenv func(string) string) (ConsumerConfig, error) {
	c := ConsumerConfig{
		Mode:        or(getenv(EnvMode), ModeAsync),
		Profile:     or(getenv(EnvProfile), ProfileSeed),
		Concurrency: DefaultConcurrency,
		Prefetch:    DefaultPrefetch,
		BrokerURL:   or(getenv(EnvAMQPURL), getenv(EnvNATSURL)),
		DatabaseURL: getenv(EnvDatabaseURL),
	}
	for _, v := range []struct {
		name string
		dst  *int
	}{{EnvConcurrency, &c.Concurrency}, {EnvPrefetch, &c.Prefetch}} {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return c, fmt.Errorf("%w: %s=%q is not a number", ErrBadInput, v.name, s)
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
