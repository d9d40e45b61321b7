package bus

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/workloadtest"

	// The hello workload, registered so that go-hello is an impl this test binary knows: one
	// that does not declare bus.
	_ "github.com/iobench/iobench/internal/workload/hello"
)

// TestBusCommandBadInput checks that bad flags and unreachable services give one line and exit 2
// from `iobench bus` and `iobench serve bus`, before any server is started.
func TestBusCommandBadInput(t *testing.T) {
	for _, v := range []string{"IOBENCH_AMQP_URL", "IOBENCH_NATS_URL", "IOBENCH_DATABASE_URL"} {
		t.Setenv(v, "")
	}
	closedAMQP := "amqp://guest:secret@" + closedAddr(t) + "/"
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
		{"impl and sut-cmd", []string{"bus", "--impl", "php-messenger", "--sut-cmd", "true", "--impls-dir", implsRoot}, "--impl and --sut-cmd"},
		{"unknown impl", []string{"bus", "--impl", "php-nope", "--impls-dir", implsRoot}, "php-nope"},
		{"not a bus impl", []string{"bus", "--impl", "go-hello", "--impls-dir", implsRoot}, "does not declare the bus workload"},
		{"unknown variant", []string{"bus", "--impl", "go-bus:turbo", "--impls-dir", implsRoot}, "no variant \"turbo\""},
		{"impl with a bad broker", []string{"bus", "--impl", "go-bus", "--impls-dir", implsRoot, "--broker", "kafka"}, "use amqp or nats"},
		{"restart-broker of a variant that does not survive it", []string{"bus", "--impl", "php-messenger:seed", "--impls-dir", implsRoot, "--profile", "durable", "--fault", "restart-broker@50%"}, "use php-messenger:fixed"},
		{"amqp-only impl on nats", []string{"bus", "--impl", "php-pure-amqp", "--impls-dir", implsRoot, "--broker", "nats", "--db", "sqlite"}, "speaks AMQP only"},
		{"serve without urls", []string{"serve", "bus"}, "no broker URL"},
		{"serve prefetch below", []string{"serve", "bus", "--broker-url", "nats://127.0.0.1:1", "--database-url", "sqlite::memory:", "--concurrency", "8", "--prefetch", "4"}, "prefetch 4 is below concurrency 8"},
		{"serve negative gogc", []string{"serve", "bus", "--gogc", "-1"}, "--gogc -1: must be 0 or more"},
		{"serve broker unreachable", []string{"serve", "bus", "--broker-url", closedAMQP, "--database-url", "sqlite::memory:"}, "connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := workloadtest.Run(tc.args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tc.want)
			}
			if strings.Contains(stderr, "secret") || strings.Contains(stderr, "bad input:") {
				t.Fatalf("stderr %q shows a password or the sentinel's text", stderr)
			}
		})
	}
}

// TestBusCommand runs `iobench bus` on the embedded NATS and a SQLite file, its consumer go-bus
// started as `iobench serve bus` (this test binary), and reads the record it writes: every
// command stored once, every event seen, the record verified.
func TestBusCommand(t *testing.T) {
	const n = 300
	path := filepath.Join(t.TempDir(), "bus.json")
	code, stdout, stderr := workloadtest.Run("bus", "-n", strconv.Itoa(n), "--broker", "nats", "--db", "sqlite", "--quiet",
		"--json", path, "--impls-dir", implsRoot, "--state-dir", implState)
	if code != 0 || !strings.Contains(stdout, "go-bus") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b := Section(rec)
	if rec.Impl != DefaultImpl || b == nil || b.CommandsHandled != n || b.EventsSeen != n || rec.Verification == nil || !rec.Verification.OK {
		t.Fatalf("record: impl %q, verification %+v, bus section %+v; want go-bus, %d commands and events, verified", rec.Impl, rec.Verification, b, n)
	}
}

// closedAddr is host:port of a port on 127.0.0.1 that nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
