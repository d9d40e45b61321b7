package bus

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
)

// injectRun is a run on RabbitMQ and PostgreSQL at URLs where nothing need listen (a relay
// connects only when its client does), its consumer the go-bus shape, with injections specs.
func injectRun(t *testing.T, dkind string, specs ...string) *run {
	t.Helper()
	sp, err := inject.ParseAll(specs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{BrokerURL: "amqp://guest:guest@127.0.0.1:1/", DatabaseURL: "postgres://u@127.0.0.1:2/db", Inject: sp}
	if dkind == "sqlite" {
		cfg.DatabaseURL = "sqlite:///tmp/x.db"
	}
	exe, _ := os.Executable() // the test binary serves `serve proxy` (TestMain)
	useCommand(&cfg, exe)
	cfg.Consumer.Inst.Executable = exe
	r := &run{cfg: cfg, bkind: "amqp", dkind: dkind}
	r.env = sutEnv(&r.cfg, r.bkind)
	return r
}

// TestInjectSUTOnly: the consumer's database URL points at the relay, everything else in it kept;
// the run's own URL (iobench's connections) and the broker's stay direct.
func TestInjectSUTOnly(t *testing.T) {
	r := injectRun(t, "postgres", "database:latency=1ms")
	if err := r.startProxies(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.proxies.Stop()
	if len(r.proxies) != 1 {
		t.Fatalf("%d relays started, want 1", len(r.proxies))
	}
	if want := "postgres://u@" + r.proxies[0].Addr + "/db"; r.env[env.DatabaseURL] != want {
		t.Errorf("the consumer gets %s = %q, want %q", env.DatabaseURL, r.env[env.DatabaseURL], want)
	}
	if r.cfg.DatabaseURL != "postgres://u@127.0.0.1:2/db" {
		t.Errorf("iobench's own database URL became %q", r.cfg.DatabaseURL)
	}
	if r.env[env.AMQPURL] != r.cfg.BrokerURL {
		t.Errorf("the broker's URL became %q", r.env[env.AMQPURL])
	}
}

// TestInjectRefused: a service the run does not use, an unknown one, and a bad value are bad input,
// before any relay starts.
func TestInjectRefused(t *testing.T) {
	for _, c := range []struct{ dkind, spec, why string }{
		{"sqlite", "postgres:latency=1ms", "this run does not use postgres"},
		{"sqlite", "database:latency=1ms", "the database of this run is sqlite"},
		{"postgres", "redis:latency=1ms", "this run does not use redis"},
		{"postgres", "mysql:latency=1ms", `unknown service "mysql"`},
	} {
		r := injectRun(t, c.dkind, c.spec)
		err := r.startProxies(context.Background())
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.why) || len(r.proxies) > 0 {
			t.Errorf("%s on %s: %v (%d relays), want bad input saying %q", c.spec, c.dkind, err, len(r.proxies), c.why)
		}
	}
	if err := inject.CheckParam("postgres:latency=-1ms"); !errors.Is(err, ErrBadInput) {
		t.Errorf("a negative latency in the inject param: %v", err)
	}
}

// TestInjectRun: a sync run with PostgreSQL delayed by 1 ms is exact, counts the consumer's round
// trips per command through its one connection (iobench's own would add theirs), and records
// the relay's cost as role proxy.
func TestInjectRun(t *testing.T) {
	const n = 200
	sp, _ := inject.ParseAll([]string{"postgres:latency=1ms"})
	exe, _ := os.Executable()
	c := Config{N: n, Mode: ModeSync, Inject: sp}
	useCommand(&c, exe, consumerArg)
	c.Consumer.Inst.Executable = exe
	began := time.Now()
	rec, err := runBus(t, realStack(t), c)
	checkExact(t, rec, err, n)
	e := inject.SectionOf(rec)["postgres"]
	if e == nil {
		t.Fatalf("no inject.postgres section; warnings %v", rec.Warnings)
	}
	t.Logf("inject.postgres %+v in %v", *e, time.Since(began).Round(time.Millisecond))
	if e.Connections != 1 {
		t.Errorf("%d connections through the relay, want the sync consumer's one alone", e.Connections)
	}
	if e.Turns < n || e.TurnsPerOp < 1 || e.TurnsPerOp > 5 {
		t.Errorf("%d turns, %.2f per command; want at least one per command and at most 5", e.Turns, e.TurnsPerOp)
	}
	if e.AddedUSPerTurn < 1000 {
		t.Errorf("added %.0f µs per turn, below the 1000 asked", e.AddedUSPerTurn)
	}
	if !hasRole(rec, inject.Role) || rec.Parameters[inject.Param] != "postgres:latency=1ms" {
		t.Errorf("processes %+v, parameters %v: want the relay as role %s and the injection", rec.Processes, rec.Parameters, inject.Role)
	}
}

func hasRole(rec *result.Record, role string) bool {
	for _, p := range rec.Processes {
		if p.Role == role {
			return true
		}
	}
	return false
}
