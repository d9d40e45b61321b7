package scenario

import (
	"fmt"
	"net/url"
	"regexp"
	"time"
)

// Builtin describes the workloads of this build (hello, http and bus). impls gives, for each
// workload, the impl references a scenario may name (impl.WorkloadRefs of the manifests found
// in impls/: NAME and NAME:VARIANT); a workload that no impl declares accepts none. http takes
// any name: it measures whatever server a URL points at.
func Builtin(impls map[string][]string) Known {
	refs := func(w string) []string { return append([]string{}, impls[w]...) } // never nil: nil accepts any name
	load := ParamSpec{Type: String, Enum: []string{"closed", "open"}, Default: "closed",
		Doc: "closed (each connection waits for its response: peak throughput) or open (a fixed rate: latency)"}
	conns := ParamSpec{Type: Int, Check: Positive, Doc: "connections kept open"}
	threads := ParamSpec{Type: Int, Check: Positive, Doc: "generator threads"}
	rate := ParamSpec{Type: Float, Check: NonNegative,
		Doc: "open loop: total requests per second; 0 or unset takes rate_of_peak of the closed loop's peak in the same repeat"}
	ratePeak := ParamSpec{Type: Float, Check: fraction,
		Doc: "open loop without rate: the share of the closed-loop peak to offer, in (0, 1]; 0.5 if unset"}
	timeout := ParamSpec{Type: Duration, Check: positiveDuration, Doc: "a slower response counts as a timeout error"}
	return Known{Workloads: map[string]WorkloadSpec{
		"hello": {
			Impls: refs("hello"),
			Params: map[string]ParamSpec{
				"load": load, "connections": conns, "threads": threads, "rate": rate, "rate_of_peak": ratePeak,
				"timeout": timeout,
				"listen":  {Type: Addr, Doc: "where the SUT listens: host:port, or auto for a free port of 127.0.0.1"},
			},
			Timed: true, DefaultDuration: 10 * time.Second, DefaultWarmup: time.Second,
		},
		"http": {
			Impls: nil, // any server: the impl is a label
			Params: map[string]ParamSpec{
				"url":  {Type: String, Required: true, Check: httpURL, Doc: "the URL to load, e.g. http://127.0.0.1:8080/"},
				"load": load, "connections": conns, "threads": threads, "rate": rate, "rate_of_peak": ratePeak,
				"timeout":     timeout,
				"method":      {Type: String, Doc: "request method (GET if unset)"},
				"keepalive":   {Type: Bool, Doc: "keep connections open between requests (true if unset)"},
				"expect_body": {Type: String, Doc: "a regular expression every response body must match"},
			},
			Timed: true, DefaultDuration: 10 * time.Second, DefaultWarmup: time.Second,
		},
		"bus": {
			Impls: refs("bus"),
			Params: map[string]ParamSpec{
				"n":           {Type: Int, Check: Positive, Doc: "commands to send"},
				"mode":        {Type: String, Enum: []string{"sync", "async"}, SUT: true, Doc: "consumer mode: sync (one message at a time) or async; picks the impl's first variant of that mode"},
				"concurrency": {Type: Int, Check: Positive, SUT: true, Doc: "async: handlers in flight in the consumer"},
				"prefetch":    {Type: Int, Check: Positive, SUT: true, Doc: "async: unacked messages the broker may push"},
				"profile":     {Type: String, Enum: []string{"seed", "durable"}, SUT: true, Doc: "seed (transient, as in the seed) or durable"},
				"fault":       {Type: String, Check: busFault, Doc: "kill-sut@50% or restart-broker@50%"},
				"timeout":     {Type: Duration, Check: positiveDuration, Doc: "bound on the whole run"},
			},
			Services: map[string]ServiceSpec{
				"broker":   {Schemes: []string{"amqp", "amqps", "nats"}, Doc: "embedded is NATS with JetStream inside iobench, local is RabbitMQ"},
				"database": {Schemes: []string{"postgres", "postgresql", "sqlite"}, Doc: "embedded is a SQLite file, local is PostgreSQL"},
			},
		},
	}}
}

func fraction(v any) error {
	if f, ok := v.(float64); ok && (f <= 0 || f > 1) {
		return fmt.Errorf("must be in (0, 1], got %g", f)
	}
	return nil
}

func positiveDuration(v any) error {
	if d, ok := v.(time.Duration); ok && d <= 0 {
		return fmt.Errorf("must be above zero")
	}
	return nil
}

func httpURL(v any) error {
	s, _ := v.(string)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// URL", s)
	}
	return nil
}

var faultRe = regexp.MustCompile(`^(kill-sut|restart-broker)(@[0-9]+(\.[0-9]+)?%)?$`)

func busFault(v any) error {
	if s, _ := v.(string); s != "" && !faultRe.MatchString(s) {
		return fmt.Errorf("unknown fault %q; use kill-sut@50%% or restart-broker@50%%", s)
	}
	return nil
}
