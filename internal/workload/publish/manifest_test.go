package publish

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
)

// TestManifestSection loads a publisher manifest whose publish section is wrong in every way
// the section checks: each problem is reported at once, with its field.
func TestManifestSection(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "python", "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `name: python-demo
language: python
variants: [{name: a, mode: sync}, {name: b, mode: async}]
workloads:
  publish:
    variants:
      a: {queue: q, count: 0, improves_on: a}
      b: {queue: q, count: 5, improves_on: z}
      c: {count: 5, concurrency: -1, persistent: true}
start: {command: [python3, x.py]}
ready: {log: ready}
`
	if err := os.WriteFile(filepath.Join(dir, impl.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := impl.Load(dir)
	if err == nil {
		t.Fatal("a broken publish section loaded")
	}
	for _, want := range []string{
		"workloads.publish.variants.a.count: 0", `workloads.publish.variants.a.improves_on: "a" is not another declared variant`,
		`workloads.publish.variants.b.improves_on: "z" is not another declared variant`,
		"workloads.publish.variants.c: not a declared variant", "workloads.publish.variants.c.queue: missing",
		"workloads.publish.variants.c.concurrency: -1", "variants.c.persistent: persistent messages in a non-durable queue",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
