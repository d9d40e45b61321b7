package main

import (
	"strings"
	"testing"
)

// TestBusBadInput checks that bad flags and unreachable services give one line and exit 2, before
// any server is started.
func TestBusBadInput(t *testing.T) {
	for _, v := range []string{"IOBENCH_AMQP_URL", "IOBENCH_NATS_URL", "IOBENCH_DATABASE_URL"} {
		t.Setenv(v, "")
	}
	closedAMQP := "amqp://guest:secret@" + strings.TrimSuffix(strings.TrimPrefix(closedPort(t), "http://"), "/") + "/"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"n zero", []string{"bus", "-n", "0"}, "-n 0"},
		{"concurrency zero", []string{"bus", "--concurrency", "0"}, "concurrency 0"},
		{"prefetch below concurrency", []string{"bus", "--prefetch", "10"}, "prefetch 10 is below concurrency 80"},
		{"bad mode", []string{"bus", "--mode", "turbo"}, "use sync or async"},
		{"sync with concurrency", []string{"bus", "--mode", "sync", "--concurrency", "8"}, "one message at a time"},
		{"bad fault", []string{"bus", "--fault", "reboot"}, "unknown fault"},
		{"restart-broker seed", []string{"bus", "--fault", "restart-broker@50%"}, "--profile durable"},
		{"bad broker", []string{"bus", "--broker", "kafka", "--db", "sqlite"}, "use amqp or nats"},
		{"two broker urls", []string{"bus", "--amqp-url", closedAMQP, "--nats-url", "nats://127.0.0.1:1"}, "both --amqp-url and --nats-url"},
		{"broker unreachable", []string{"bus", "--amqp-url", closedAMQP, "--db", "sqlite", "-n", "10"}, "connection refused"},
		{"restart external broker", []string{"bus", "--amqp-url", closedAMQP, "--db", "sqlite", "--profile", "durable", "--fault", "restart-broker@50%"}, "needs a broker that iobench started"},
		{"variant without impl", []string{"bus", "--variant", "fixed"}, "--variant without --impl"},
		{"impl and sut-cmd", []string{"bus", "--impl", "php-messenger", "--sut-cmd", "true", "--impls-dir", "../../impls"}, "--impl and --sut-cmd"},
		{"unknown impl", []string{"bus", "--impl", "php-nope", "--impls-dir", "../../impls"}, "php-nope"},
		{"not a bus impl", []string{"bus", "--impl", "go-hello", "--impls-dir", "../../impls"}, "does not implement the bus workload"},
		{"unknown variant", []string{"bus", "--impl", "go-bus:turbo", "--impls-dir", "../../impls"}, "no variant \"turbo\""},
		{"impl with a bad broker", []string{"bus", "--impl", "go-bus", "--impls-dir", "../../impls", "--broker", "kafka"}, "use amqp or nats"},
		{"restart-broker of a variant that does not survive it", []string{"bus", "--impl", "php-messenger:seed", "--impls-dir", "../../impls", "--profile", "durable", "--fault", "restart-broker@50%"}, "use php-messenger:fixed"},
		{"amqp-only impl on nats", []string{"bus", "--impl", "php-pure-amqp", "--impls-dir", "../../impls", "--broker", "nats", "--db", "sqlite"}, "speaks AMQP only"},
		{"serve without urls", []string{"serve", "bus"}, "no broker URL"},
		{"serve prefetch below", []string{"serve", "bus", "--broker-url", "nats://127.0.0.1:1", "--database-url", "sqlite::memory:", "--concurrency", "8", "--prefetch", "4"}, "prefetch 4 is below concurrency 8"},
		{"serve negative gogc", []string{"serve", "bus", "--gogc", "-1"}, "--gogc -1: must be 0 or more"},
		{"serve broker unreachable", []string{"serve", "bus", "--broker-url", closedAMQP, "--database-url", "sqlite::memory:"}, "connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tc.args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tc.want)
			}
			if strings.Contains(stderr, "secret") || strings.Contains(stderr, "bad input:") {
				t.Fatalf("stderr %q shows a password or the sentinel's text", stderr)
			}
		})
	}
}
