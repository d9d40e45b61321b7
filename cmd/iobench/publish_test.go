package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
)

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
			args := append([]string{"publish", "--impls-dir", "../../impls", "--state-dir", dir, "--amqp-url", "amqp://guest:guest@127.0.0.1:1/"}, tc.args...)
			code, stdout, stderr := runCLI(args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

// TestPublishImplVariantAndDefault publishes with --impl NAME:VARIANT and with NAME alone on the
// RabbitMQ of the tests: the record names the variant given, and the impl's first by default.
func TestPublishImplVariantAndDefault(t *testing.T) {
	if os.Getenv(env.AMQPURL) == "" {
		t.Skip("no RabbitMQ: run through make test, which starts one and sets " + env.AMQPURL)
	}
	dir := t.TempDir()
	for ref, want := range map[string]string{"go-publisher:pool": "pool", "go-publisher": "single"} {
		out := dir + "/" + want + ".json"
		code, _, stderr := runCLI("publish", "--impl", ref, "-n", "300", "--quiet", "--state-dir", dir, "--json", out)
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
