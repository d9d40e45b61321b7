package publish_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/workload/publish"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestInjectBadInput: an injection into the built-in publisher (no relay can sit inside iobench),
// into a service publish does not use, or with a bad value is one line and exit 2.
func TestInjectBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--inject", "rabbitmq:latency=1ms"}, "the built-in publisher runs inside iobench"},
		{[]string{"--impl", "go-publisher", "--inject", "postgres:latency=1ms"}, "this run does not use postgres (it uses rabbitmq as its broker)"},
		{[]string{"--impl", "go-publisher", "--inject", "broker:latency=fast"}, "with its unit"},
	} {
		args := append([]string{"publish", "--impls-dir", implsRoot, "--state-dir", t.TempDir(), "--amqp-url", "amqp://guest:guest@127.0.0.1:1/"}, c.args...)
		code, _, stderr := workloadtest.Run(args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestInjectImpl: go-publisher with confirms publishes through a 1 ms relay: the impl talks to
// the relay (one connection, a turn per confirm window at most), while iobench's own count at the
// broker, direct, still finds every message.
func TestInjectImpl(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := workloadtest.Run("publish", "--impl", "go-publisher:single", "-n", "300", "--quiet", "--state-dir", t.TempDir(),
		"--json", out, "--impls-dir", implsRoot, "--amqp-url", servicetest.URL(t, "rabbitmq"), "--inject", "rabbitmq:latency=1ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rec, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	e, p := inject.SectionOf(rec)["rabbitmq"], publish.Section(rec)
	if e == nil || p == nil || p.Accepted != 300 {
		t.Fatalf("inject %+v, publish %+v", e, p)
	}
	if e.Connections != 1 || e.LatencyUS != 1000 || len(rec.Processes) == 0 {
		t.Errorf("inject.rabbitmq %+v: want the impl's one connection through the relay, latency 1000 µs", *e)
	}
	if !slices.ContainsFunc(rec.Processes, func(p result.Process) bool { return p.Role == inject.Role }) {
		t.Errorf("processes %+v: no relay as role %s", rec.Processes, inject.Role)
	}
}
