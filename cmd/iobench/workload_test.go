package main

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// The example workload shows the whole contract in one place: a workload is a Register call
// with its scenario parameters and its run; iobench run, the summary and the report need
// nothing else. It hashes a buffer n times and reports the rate.
func init() {
	workload.Register(workload.Workload{
		Name:    "example-sha256",
		AnyImpl: true, // no impl to start: the impl is a label
		Spec: scenario.WorkloadSpec{Params: map[string]scenario.ParamSpec{
			"n": {Type: scenario.Int, Check: scenario.Positive, Doc: "hashes to compute"},
		}},
		Run: runExample,
	})
}

func runExample(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	n, _ := r.Params["n"].(int64)
	buf := make([]byte, 1024)
	start := time.Now()
	var done int64
	for ; done < n && ctx.Err() == nil; done++ {
		sum := sha256.Sum256(buf)
		buf[0] ^= sum[0]
	}
	took := time.Since(start)
	return &result.Record{
		SchemaVersion: result.SchemaVersion, Workload: r.Workload, Impl: r.Impl, Mode: "sync",
		Parameters: map[string]any{"n": n}, Command: e.Command, Environment: result.CaptureEnvironment(),
		StartedAt: start, Duration: result.Duration(took),
		Counts:     result.Counts{Attempted: done, Succeeded: done},
		Throughput: result.Throughput{Unit: "hash/s", Mean: float64(done) / took.Seconds()},
	}, ctx.Err()
}

// TestExampleWorkloadEndToEnd runs a workload defined in this test file through `iobench run`:
// a scenario names it, the suite runs it, and its records, summary and report are written.
func TestExampleWorkloadEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "example.yaml")
	src := "name: example\nworkload: example-sha256\nimpls: [go-sha256]\nparams: {n: [20000, 40000]}\nrepeats: 2\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("run", path, "--results", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Summary of suite example (4 runs") || !strings.Contains(stdout, "hash/s") {
		t.Fatalf("no summary of the 4 runs in hash/s:\n%s", stdout)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "*-example", "*.json"))
	reports, _ := filepath.Glob(filepath.Join(dir, "*-example", "report.html"))
	if len(recs) != 4 || len(reports) != 1 {
		t.Fatalf("%d records and %d reports written; want 4 and 1", len(recs), len(reports))
	}
	rec, err := result.Load(recs[0])
	if err != nil || rec.Workload != "example-sha256" || rec.Counts.Succeeded < 20000 {
		t.Fatalf("record %+v, %v", rec, err)
	}
}
