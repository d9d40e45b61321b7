package service

import (
	"strings"
	"testing"
)

// TestRoleMissing: only a choice that makes iobench start a local server from the machine's
// binaries needs them installed; an external URL, the embedded service, auto with an embedded
// fallback and a server named by the environment need nothing. The machine has RabbitMQ (make
// test installs it); a local role of a service this build does not know stands for one that is
// not installed.
func TestRoleMissing(t *testing.T) {
	broker := Role{Name: "broker", Local: "rabbitmq", Embedded: "nats", Schemes: map[string]string{"amqp": "rabbitmq", "nats": "nats"}}
	t.Setenv("IOBENCH_AMQP_URL", "")
	for _, c := range []Choice{{}, {Kind: KindEmbedded}, {Kind: KindExternal, URL: "amqp://127.0.0.1:1/"}, {Kind: KindLocal}} {
		if err := broker.Missing(c); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	nothing := Role{Name: "store", Local: "iobench-nosuch"}
	if err := nothing.Missing(Choice{}); err == nil || !strings.Contains(err.Error(), "iobench-nosuch") {
		t.Errorf("auto without an embedded fallback: %v, want the missing server named", err)
	}
	if err := nothing.Missing(Choice{Kind: KindExternal, URL: "x://h/"}); err != nil {
		t.Errorf("external: %v", err)
	}
}
