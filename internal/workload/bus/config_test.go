package bus

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/workload"
)

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fault
		bad  bool
	}{
		{in: "", want: Fault{}},
		{in: "kill-sut@50%", want: Fault{Kind: FaultKillSUT, At: 0.5}},
		{in: "kill-sut", want: Fault{Kind: FaultKillSUT, At: 0.5}},
		{in: "restart-broker@25%", want: Fault{Kind: RestartBroker.Kind, Service: RestartBroker.Service, At: 0.25}},
		{in: "kill-sut@50", bad: true},
		{in: "kill-sut@0%", bad: true},
		{in: "kill-sut@100%", bad: true},
		{in: "kill-sut@x%", bad: true},
		{in: "reboot@50%", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFault(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrBadInput) {
					t.Fatalf("err = %v, want ErrBadInput", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
			if back, _ := ParseFault(got.String()); back != got {
				t.Fatalf("String %q does not parse back", got.String())
			}
		})
	}
}

func TestConfigCheck(t *testing.T) {
	ok := func() Config {
		return Config{N: 10, Mode: ModeAsync, Concurrency: 80, Prefetch: 100, Profile: ProfileSeed}
	}
	for name, tc := range map[string]struct {
		edit func(*Config)
		bad  bool
	}{
		"defaults":                 {edit: func(*Config) {}},
		"n zero":                   {edit: func(c *Config) { c.N = 0 }, bad: true},
		"n negative":               {edit: func(c *Config) { c.N = -5 }, bad: true},
		"concurrency zero":         {edit: func(c *Config) { c.Concurrency = 0 }, bad: true},
		"prefetch below":           {edit: func(c *Config) { c.Prefetch = 79 }, bad: true},
		"sync ignores prefetch":    {edit: func(c *Config) { c.Mode, c.Prefetch = ModeSync, 1 }},
		"prefetch zero":            {edit: func(c *Config) { c.Mode, c.Prefetch = ModeSync, 0 }, bad: true},
		"bad mode":                 {edit: func(c *Config) { c.Mode = "turbo" }, bad: true},
		"bad profile":              {edit: func(c *Config) { c.Profile = "fast" }, bad: true},
		"restart-broker with seed": {edit: func(c *Config) { c.Fault = RestartBroker }, bad: true},
	} {
		t.Run(name, func(t *testing.T) {
			c := ok()
			tc.edit(&c)
			err := c.Check()
			if tc.bad != (err != nil) {
				t.Fatalf("Check() = %v, want bad=%v", err, tc.bad)
			}
			if err != nil && !errors.Is(err, ErrBadInput) {
				t.Fatalf("%v does not wrap ErrBadInput", err)
			}
		})
	}
}

// TestCheckRecordsWhatRuns: a sync consumer handles one message at a time, so the settings the
// record and the consumer get are 1 and 1, whatever the defaults were.
// TestCheckRestartBrokerVariant: restart-broker runs an impl's variant only if its manifest says
// it survives one; the refusal is one line naming those that do.
func TestCheckRestartBrokerVariant(t *testing.T) {
	c := Config{N: 10, Mode: ModeSync, Concurrency: 1, Prefetch: 1, Profile: ProfileDurable,
		Fault: RestartBroker, Impl: "php-messenger", Variant: "fixed", RestartBroker: []string{"fixed"},
		Consumer: workload.Target{Inst: &impl.Installation{Manifest: &impl.Manifest{Name: "php-messenger", Dir: "/impls/php/messenger"}}}}
	if err := c.Check(); err != nil {
		t.Fatalf("a variant that survives: %v", err)
	}
	c.Variant = "seed"
	err := c.Check()
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "php-messenger:seed does not survive") ||
		!strings.Contains(err.Error(), "use php-messenger:fixed") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a variant that does not: %v", err)
	}
	c.RestartBroker = nil
	if err := c.Check(); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "no variant of php-messenger") {
		t.Fatalf("an impl without any: %v", err)
	}
	useCommand(&c, "/bin/sh", "-c", "my-consumer --fast") // --sut-cmd: no manifest to ask
	if err := c.Check(); err != nil {
		t.Fatalf("a command of the user's: %v", err)
	}
}

func TestCheckRecordsWhatRuns(t *testing.T) {
	c := Config{N: 10, Mode: ModeSync, Concurrency: DefaultConcurrency, Prefetch: DefaultPrefetch, Profile: ProfileSeed}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if c.Concurrency != 1 || c.Prefetch != 1 {
		t.Fatalf("sync run checked to concurrency %d, prefetch %d; want 1 and 1", c.Concurrency, c.Prefetch)
	}
	a := Config{N: 10, Mode: ModeAsync, Concurrency: 8, Prefetch: 20, Profile: ProfileSeed}
	if err := a.Check(); err != nil || a.Concurrency != 8 || a.Prefetch != 20 {
		t.Fatalf("async run checked to %d/%d (%v); want 8/20 kept", a.Concurrency, a.Prefetch, err)
	}
}

func TestValidateURLs(t *testing.T) {
	c := Config{N: 1, Mode: ModeSync, Concurrency: 1, Prefetch: 1, Profile: ProfileDurable,
		BrokerURL: "nats://127.0.0.1:1", DatabaseURL: "sqlite:///tmp/x.db",
		Fault: RestartBroker, Broker: Service{Name: "nats", Kind: "embedded"}}
	if err := c.validate(); !errors.Is(err, ErrBadInput) {
		t.Fatalf("restart-broker without Restart: %v", err)
	}
	c.Fault = Fault{}
	c.BrokerURL = "redis://127.0.0.1:1"
	if err := c.validate(); !errors.Is(err, ErrBadInput) {
		t.Fatalf("redis broker: %v", err)
	}
	c.BrokerURL, c.DatabaseURL = "amqp://u:secret@h/", "mysql://u:secret@h/db"
	err := c.validate()
	if !errors.Is(err, ErrBadInput) || containsSecret(err) {
		t.Fatalf("mysql database: %v", err)
	}
}

func containsSecret(err error) bool { return err != nil && strings.Contains(err.Error(), "secret") }

// TestCommandTarget checks the consumer --sut-cmd runs: named after the script's first word, in
// the mode asked, which reaches it once (its variant's IOBENCH_MODE), on iobench's own queues,
// stopped with SIGTERM, then SIGKILL after 10 s.
func TestCommandTarget(t *testing.T) {
	tg := CommandTarget([]string{"/bin/sh", "-c", "./consumer.py --x"}, ModeSync, t.TempDir())
	var c Config
	UseImpl(&c, tg.Inst, tg.Variant)
	m := tg.Inst.Manifest
	if c.Impl != "consumer.py" || c.Mode != ModeSync || c.Variant != "" || c.Topology.Queue != CommandsQueue ||
		c.Topology.EventQueue != EventsQueue || c.fromManifest() {
		t.Fatalf("config %+v", c)
	}
	if got := tg.Inst.VariantEnv(tg.Variant)[env.Mode]; got != ModeSync {
		t.Fatalf("IOBENCH_MODE %q, want sync", got)
	}
	if m.StopSignal() != syscall.SIGTERM || m.StopTimeout() != 10*time.Second {
		t.Fatalf("stop %v after %v: want SIGTERM, then SIGKILL after 10s", m.StopSignal(), m.StopTimeout())
	}
	if got := sutEnv(&Config{Profile: ProfileSeed, Concurrency: 4, Prefetch: 8}, "amqp"); got[env.Mode] != "" || got[env.Prefetch] != "8" {
		t.Fatalf("the run's environment %v: want IOBENCH_PREFETCH and no IOBENCH_MODE (the variant's)", got)
	}
}

// TestCheckRestartPostgres: restart-postgres runs a variant only if its manifest says it
// survives one, and only on a PostgreSQL iobench can restart; other faults of other services,
// and a second fault, are refused in one line.
func TestCheckRestartPostgres(t *testing.T) {
	c := Config{N: 10, Mode: ModeSync, Concurrency: 1, Prefetch: 1, Profile: ProfileSeed,
		Fault: RestartPostgres, Impl: "go-bus", Variant: "sync", RestartPostgres: []string{"sync"},
		Consumer: workload.Target{Inst: &impl.Installation{Manifest: &impl.Manifest{Name: "go-bus", Dir: "/impls/go/bus"}}}}
	if err := c.Check(); err != nil {
		t.Fatalf("a variant that survives: %v", err)
	}
	c.Variant = "async"
	if err := c.Check(); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "restart_postgres does not list it") {
		t.Fatalf("a variant that does not: %v", err)
	}
	c.Variant, c.BrokerURL, c.DatabaseURL = "sync", "amqp://127.0.0.1:1/", "sqlite:///tmp/x.db"
	if err := c.validate(); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "needs a PostgreSQL that iobench started") {
		t.Fatalf("restart-postgres on SQLite: %v", err)
	}
	for in, says := range map[string]string{
		"restart-redis@50%":         "does not use redis",
		"down-postgres@50%+1s":      "cannot cut postgres",
		"kill-sut@50%;kill-sut@60%": "takes one fault",
		"restart-postgres@50%":      "",
		"restart-broker@50%":        "",
	} {
		_, err := ParseFault(in)
		if says == "" && err != nil || says != "" && (!errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), says)) {
			t.Errorf("ParseFault(%s) = %v; want %q", in, err, says)
		}
	}
}
