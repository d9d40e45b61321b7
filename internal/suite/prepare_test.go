package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/scenario"
)

// lackingImpl is a real manifest whose prerequisite cannot be on any machine.
const lackingImpl = `name: go-lacking
language: go
differs: []
description: "go-hello's server behind a prerequisite no machine has"
variants:
  - {name: async, mode: async, description: as go-hello}
workloads:
  hello:
    routes: ["/"]
requires:
  commands:
    - {name: iobench-no-such-tool, hint: "apt-get install iobench-no-such-tool"}
start:
  command: ["iobench", "serve", "hello"]
ready:
  tcp: listen
  timeout: 10s
`

// TestSkipMissingPrerequisite: before any run, every impl is installed and checked; one that
// misses a prerequisite is told once with what to install, its runs are skipped (not failed),
// and the other impl's runs go on.
func TestSkipMissingPrerequisite(t *testing.T) {
	root := t.TempDir()
	hello, err := os.ReadFile(filepath.Join(implsRoot, "go", "hello", "impl.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for dir, text := range map[string]string{"hello": string(hello), "lacking": lackingImpl} {
		if err := os.MkdirAll(filepath.Join(root, "go", dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "go", dir, "impl.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	known, err := Known(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseWith(known, `name: skip
workload: hello
impls: [go-lacking, go-hello]
params: {load: closed, connections: 2, threads: 1}
repeats: 2
warmup: 100ms
duration: 300ms
`)
	if err != nil {
		t.Fatal(err)
	}
	opts := options(t)
	opts.Impls = root
	var told []string
	started := 0
	opts.OnSkip = func(what string, err error) { told = append(told, what+": "+err.Error()) }
	opts.OnStart = func(int, int, scenario.Run) {
		if len(told) == 0 {
			t.Error("a run started before the prerequisites were checked")
		}
		started++
	}
	outs := Run(t.Context(), s, opts)
	if len(told) != 1 || !strings.Contains(told[0], "impl go-lacking: ") || !strings.Contains(told[0], "apt-get install iobench-no-such-tool") {
		t.Fatalf("told %q: want one line naming go-lacking and what to install", told)
	}
	for _, o := range outs {
		lacking := strings.HasPrefix(o.Run.Impl, "go-lacking")
		switch {
		case lacking && (o.Skip == nil || o.Record != nil || o.Err != nil):
			t.Errorf("%s: skip %v, record %v, err %v: want skipped with the reason, not failed", o.Run.ID, o.Skip, o.Record != nil, o.Err)
		case !lacking && (o.Skip != nil || o.Err != nil || o.Record == nil || o.Record.Counts.Succeeded == 0):
			t.Errorf("%s: %v: want measured", o.Run.ID, o.Err)
		}
	}
	if len(outs) != 4 || started != 2 {
		t.Errorf("%d outcomes, %d started: want 4 and the 2 of go-hello", len(outs), started)
	}
}
