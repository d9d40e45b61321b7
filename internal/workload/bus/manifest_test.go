package bus

import (
	"errors"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

const busManifest = `name: php-x
language: php
differs: []
variants: [{name: sync, mode: sync}]
start: {command: [php, x.php]}
ready: {log: '^ready$'}
workloads:
  bus:
`

// TestTopologySection checks the bus's manifest section: the exchange's name and type, the
// brokers and databases named, the variants that survive a broker restart, and what TopologyOf
// makes of a valid one.
func TestTopologySection(t *testing.T) {
	for _, tc := range []struct{ section, want string }{
		{"    queues: [a]\n    exchange: {name: x, type: headers}", `workloads.bus.exchange.type: "headers"`},
		{"    queues: [a]\n    exchange: {type: direct}", "workloads.bus.exchange.name: missing"},
		{"    queues: [a]\n    exchange: {name: amq.direct, type: direct}", "reserved"},
		{"    queues: [a]\n    exchange: {name: x, type: direct}\n    brokers: [nats]", "NATS has no exchanges"},
		{"    queues: [a]\n    brokers: [kafka]\n    databases: [mysql]", `"kafka"`},
		{"    queues: [a, b, c]", "3 queues"},
		{"    queues: [a]\n    exchange: {name: x, type: direct, key: k}", "workloads.bus.exchange.key: unknown key"},
		{"    queues: [a, b]\n    restart_broker: [turbo]", `workloads.bus.restart_broker[0]: unknown variant "turbo" (use one of sync)`},
		{"    queues: [a, b]\n    restart_broker: [sync, sync]", `workloads.bus.restart_broker[1]: "sync" listed twice`},
		{"    queues: [a]\n    restart_broker: [sync]", "workloads.bus.restart_broker: no durable profile"},
	} {
		_, err := impl.Parse([]byte(busManifest+tc.section+"\n"), "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.section, err, tc.want)
		}
	}
	m, err := impl.Parse([]byte(busManifest+"    queues: [messages, messages.events]\n    exchange: {name: messages, type: fanout, routing_key: \"\"}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	top := TopologyOf(m)
	if top.Queue != "messages" || top.EventQueue != "messages.events" || top.Exchange != "messages" || top.ExchangeType != "fanout" ||
		strings.Join(top.Brokers, ",") != "amqp" || strings.Join(top.Databases, ",") != "postgres" {
		t.Fatalf("topology %+v", top)
	}
	if err := top.check("php-x", "nats", "postgres", ProfileSeed); !errors.Is(err, service.ErrNotInstalled) || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "install RabbitMQ") {
		t.Fatalf("an AMQP-only impl on NATS: %v", err)
	}
	if err := top.check("php-x", "amqp", "sqlite", ProfileSeed); !errors.Is(err, service.ErrNotInstalled) || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "needs PostgreSQL") {
		t.Fatalf("a PostgreSQL-only impl on SQLite: %v", err)
	}
	top.EventQueue = ""
	if err := top.check("php-x", "amqp", "postgres", ProfileDurable); err == nil || !strings.Contains(err.Error(), "no durable profile") {
		t.Fatalf("durable without an event queue: %v", err)
	}
	var c ServicesConfig
	if err := DefaultTopology.Prefer("go-bus", &c); err != nil || c.Broker != "" || c.DB != "" {
		t.Fatalf("the built-in consumer's services were steered: %v %+v", err, c)
	}
	c = ServicesConfig{Broker: "nats"}
	if err := top.Prefer("php-x", &c); err == nil || !strings.Contains(err.Error(), "AMQP only") {
		t.Fatalf("--broker nats for an AMQP-only impl: %v", err)
	}
}

// TestFlawReproduced checks the accounting of "f" lines: a failed command is error class
// handler, the run is not verified, and it is the seed flaw reproduced only for a variant that
// expects redelivered-duplicate-key and when nothing else went wrong.
func TestFlawReproduced(t *testing.T) {
	r, err := busproto.ParseReport([]byte("f 3 1700000000000000000 1\n"))
	if err != nil || r.Kind != busproto.ReportFailed || r.Seq != 3 || !r.Redelivered {
		t.Fatalf("ParseReport: %+v %v", r, err)
	}
	if got := string(busproto.AppendReport(nil, r)); got != "f 3 1700000000000000000 1\n" {
		t.Fatalf("AppendReport: %q", got)
	}
	tl := newTally(4, 0)
	tl.add(r)
	for seq := range int64(4) {
		tl.add(busproto.Report{Kind: busproto.ReportEvent, Seq: seq, AtNS: 1})
	}
	run := &run{cfg: Config{N: 4}, t: tl}
	rec := &result.Record{Workload: Name}
	rec.SetSection(Name, &run.bus)
	run.account(rec, 4, 4, 0) // every row there, every event seen: only the failure is wrong
	b := Section(rec)
	if b.Verified || b.FailedCommands != 1 || rec.Counts.Errors[ErrClassHandler] != 1 {
		t.Fatalf("accounting: %+v %+v", *b, rec.Counts)
	}
	if FlawReproduced(rec) {
		t.Fatal("a flaw reproduced by a variant that expects none")
	}
	rec.Expect = []string{"redelivered-duplicate-key"}
	if !FlawReproduced(rec) {
		t.Fatalf("the expected flaw not recognised: %+v", *b)
	}
	b.LostCommands = 1
	if FlawReproduced(rec) {
		t.Fatal("a lost command passed as the seed flaw")
	}
}
