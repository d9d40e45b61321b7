package inject

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/result"
)

func TestParse(t *testing.T) {
	got, err := ParseAll([]string{"postgres:latency=5ms,jitter=200us", "Broker:latency=0s;redis:jitter=1ms,latency=500us"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Spec{{"postgres", 5 * time.Millisecond, 200 * time.Microsecond}, {"broker", 0, 0}, {"redis", 500 * time.Microsecond, time.Millisecond}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("spec %d: got %+v, want %+v", i, got[i], want[i])
		}
		if back, err := Parse(got[i].String()); err != nil || back != got[i] {
			t.Errorf("%q reads back as %+v, %v", got[i].String(), back, err)
		}
	}
	for s, why := range map[string]string{
		"postgres":                          "SERVICE:latency",
		"postgres:":                         "unknown setting",
		"postgres:jitter=1ms":               "no latency",
		"postgres:latency=-1ms":             "negative",
		"postgres:latency=5":                "with its unit",
		"postgres:latency=fast":             "with its unit",
		"postgres:latency=1ms,latency=2ms":  "twice",
		"postgres:latency=1ms,bandwidth=1M": "unknown setting",
	} {
		_, err := Parse(s)
		if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want one line of bad input saying %q", s, err, why)
		}
	}
}

// busUses are a bus run's services on RabbitMQ and PostgreSQL, both given to the consumer.
var busUses = []Use{{Role: "database", Kind: "postgres", Var: "IOBENCH_DATABASE_URL"}, {Role: "broker", Kind: "rabbitmq", Var: "IOBENCH_AMQP_URL"}}

func TestResolve(t *testing.T) {
	got, err := Resolve([]Spec{{Service: "database", Latency: time.Millisecond}, {Service: "rabbitmq"}}, busUses, "go-bus")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != "postgres" || got[0].Var != "IOBENCH_DATABASE_URL" || got[1].Kind != "rabbitmq" {
		t.Errorf("resolved %+v", got)
	}
	sqlite := []Use{{Role: "database", Kind: "sqlite"}, busUses[1]}
	noVar := []Use{{Role: "database", Kind: "postgres"}, busUses[1]}
	for _, c := range []struct {
		specs []Spec
		uses  []Use
		why   string
	}{
		{[]Spec{{Service: "mysql"}}, busUses, `unknown service "mysql"`},
		{[]Spec{{Service: "postgress"}}, busUses, `did you mean "postgres"?`},
		{[]Spec{{Service: "redis"}}, busUses, "does not use redis (it uses postgres as its database, rabbitmq as its broker)"},
		{[]Spec{{Service: "postgres"}}, sqlite, "does not use postgres"},
		{[]Spec{{Service: "database"}}, sqlite, "database of this run is sqlite"},
		{[]Spec{{Service: "postgres"}}, noVar, "go-bus's manifest gives no address variable for postgres"},
		{[]Spec{{Service: "postgres"}, {Service: "database"}}, busUses, "postgres is injected twice"},
	} {
		_, err := Resolve(c.specs, c.uses, "go-bus")
		if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Resolve(%+v) = %v, want bad input saying %q", c.specs, err, c.why)
		}
	}
}

func TestRedirect(t *testing.T) {
	for raw, want := range map[string]string{
		"postgres://u:p@127.0.0.1:5432/db?sslmode=disable": "postgres://u:p@127.0.0.1:9999/db?sslmode=disable",
		"amqp://guest:guest@localhost/":                    "amqp://guest:guest@127.0.0.1:9999/",
		"127.0.0.1:11211":                                  "127.0.0.1:9999",
	} {
		got, err := Redirect(raw, "127.0.0.1:9999")
		if err != nil || got != want {
			t.Errorf("Redirect(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	if hp, err := HostPort("amqp://guest:guest@localhost/"); err != nil || hp != "localhost:5672" {
		t.Errorf("HostPort of an AMQP URL without a port: %q, %v", hp, err)
	}
	for _, raw := range []string{"sqlite:///tmp/x.db", "nats", "foo://host/"} {
		if _, err := Redirect(raw, "127.0.0.1:9999"); err == nil {
			t.Errorf("Redirect(%q) accepted", raw)
		}
	}
}

func TestLines(t *testing.T) {
	rec := &result.Record{}
	rec.SetSection(SectionKey, &Section{"postgres": {LatencyUS: 5000, JitterUS: 200, AddedUSPerTurn: 5087.4, Turns: 1000, TurnsPerOp: 2, Connections: 1}})
	got := Lines(rec)
	want := "injected: postgres +5ms ±200µs through iobench's relay: it added 5087 µs per turn; 2.00 turns per operation (1000 turns, 1 connection)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	rec.SetSection(SectionKey, &Section{"redis": {LatencyUS: 500, AddedUSPerTurn: 612, Turns: 40, TurnsPerOp: 3, Connections: 2, PeakInFlight: 2}})
	if got := Lines(rec); len(got) != 1 || !strings.HasSuffix(got[0], "(40 turns, 2 connections, at most 2 outstanding at once)") {
		t.Errorf("Lines = %q, want the peak of outstanding turns", got)
	}
	if Lines(&result.Record{}) != nil {
		t.Error("a record without injection has lines")
	}
}
