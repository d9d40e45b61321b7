package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// tinySuite is a real suite, small enough for CI: hello closed and open, the bus sync and async on
// embedded services, and a run that must fail (nothing listens at its URL).
const tinySuite = `name: hello
workload: hello
impls: [go-hello]
params:
  load: [closed, open]
  connections: 4
  threads: 1
repeats: 1
warmup: 200ms
duration: 1s
---
name: bus
workload: bus
impls: [go-bus]
params:
  mode: [sync, async]
  n: 300
services:
  broker: embedded
  database: embedded
repeats: 1
---
name: down
workload: http
impls: [nothing]
params:
  url: %s
repeats: 1
warmup: 0s
duration: 1s
`

func TestRunSuiteEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(tinySuite, "%s", closedPort(t), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	code, stdout, stderr := runCLI("run", "--quiet", "--results", results, path)
	if code != 1 || !strings.Contains(stderr, "1 run(s) failed") {
		t.Fatalf("exit %d, stderr %q: want 1 with the failed run named", code, stderr)
	}
	for _, want := range []string{"FAILED: ", "Latency Distribution (corrected", "verified: every command", "Summary of suite tiny", "async go-bus is"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(results, "*-tiny"))
	if len(runs) != 1 {
		t.Fatalf("results directories %v", runs)
	}
	recs, _ := filepath.Glob(filepath.Join(runs[0], "*.json"))
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4 (the failed run has none): %v", len(recs), recs)
	}
	for _, p := range recs {
		rec, err := result.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Counts.Succeeded == 0 || rec.Counts.Failed != 0 {
			t.Errorf("%s: counts %+v", p, rec.Counts)
		}
		if rec.Workload == "hello" && rec.LoadModel == "open" && rec.Throughput.TargetRate <= 0 {
			t.Errorf("%s: the open loop took no rate from its closed-loop peer", p)
		}
	}
	for _, f := range []string{"summary.md", "report.html"} {
		if st, err := os.Stat(filepath.Join(runs[0], f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
}

func TestRunBadScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(path, []byte("name: x\nworkload: helo\nrepeats: many\n"), 0o644)
	code, _, stderr := runCLI("run", path)
	if code != 2 || !strings.Contains(stderr, "bad.yaml:2") || !strings.Contains(stderr, "bad.yaml:3") {
		t.Fatalf("exit %d, stderr %q: want 2 with every problem and its line", code, stderr)
	}
}
