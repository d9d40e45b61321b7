package publish_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// implsRoot is impls/ seen from this package's folder.
const implsRoot = "../../../impls"

// TestPublishImplRefBadInput checks --impl NAME:VARIANT as publish reads it: a variant the impl
// lacks, two different variants, and --variant alone are one line and exit 2, before any broker
// is started.
func TestPublishImplRefBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown variant", []string{"--impl", "go-publisher:turbo"}, `no variant "turbo"; choose from single, pool, ultra`},
		{"two variants", []string{"--impl", "go-publisher:pool", "--variant", "single"}, "name two variants"},
		{"variant without impl", []string{"--variant", "pool"}, "--variant without --impl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"publish", "--impls-dir", implsRoot, "--state-dir", dir, "--amqp-url", "amqp://guest:guest@127.0.0.1:1/"}, tc.args...)
			code, stdout, stderr := workloadtest.Run(args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

// TestPublishImplVariantAndDefault publishes with --impl NAME:VARIANT and with NAME alone on the
// RabbitMQ of the tests (go-publisher: this test binary as `iobench serve publisher`): the record
// names the variant given, and the impl's first by default.
func TestPublishImplVariantAndDefault(t *testing.T) {
	dir := t.TempDir()
	for ref, want := range map[string]string{"go-publisher:pool": "pool", "go-publisher": "single"} {
		out := dir + "/" + want + ".json"
		code, _, stderr := workloadtest.Run("publish", "--impl", ref, "-n", "300", "--quiet", "--state-dir", dir, "--json", out,
			"--impls-dir", implsRoot, "--amqp-url", servicetest.URL(t, "rabbitmq"))
		if code != 0 {
			t.Fatalf("publish --impl %s: exit %d: %s", ref, code, stderr)
		}
		var rec struct{ Variant string }
		b, err := os.ReadFile(out)
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil || rec.Variant != want {
			t.Errorf("publish --impl %s: record variant %q (%v), want %q", ref, rec.Variant, err, want)
		}
	}
}

// TestPublishBuiltin publishes with the built-in Go publisher (no --impl) on the RabbitMQ of
// the tests: the record names go-publisher with no variant and keeps the flags' settings.
func TestPublishBuiltin(t *testing.T) {
	dir := t.TempDir()
	out := dir + "/builtin.json"
	code, _, stderr := workloadtest.Run("publish", "-n", "300", "-P", "2", "--confirm", "10", "--queue", "iobench.builtin-test", "--quiet", "--state-dir", dir, "--json", out,
		"--amqp-url", servicetest.URL(t, "rabbitmq"))
	if code != 0 {
		t.Fatalf("publish: exit %d: %s", code, stderr)
	}
	var rec struct {
		Impl, Variant string
		Publish       struct {
			Publishers, Confirm int
			Queue               string
			CountedBy           string `json:"counted_by"`
			Accepted            int64
		}
	}
	b, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	p := rec.Publish
	if err != nil || rec.Impl != "go-publisher" || rec.Variant != "" || p.Publishers != 2 || p.Confirm != 10 ||
		p.Queue != "iobench.builtin-test" || p.CountedBy != "confirms" || p.Accepted != 300 {
		t.Errorf("record %+v (%v); want go-publisher, no variant, 2 publishers, confirm 10, the queue given, 300 confirmed", rec, err)
	}
}

// TestSeed2WithoutRun: in a binary without `iobench run` (this test's), `publish seed2` says it
// cannot run the scenario, in one line and exit 1, rather than run something else.
func TestSeed2WithoutRun(t *testing.T) {
	code, stdout, stderr := workloadtest.Run("publish", "seed2")
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "no 'iobench run'") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and one line saying there is no 'iobench run'", code, stdout, stderr)
	}
}
