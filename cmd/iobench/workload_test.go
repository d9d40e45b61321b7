package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// The example workload shows the whole contract in one place: a workload is a Register call
// with its scenario parameters and its run; iobench run, the summary and the report need
// nothing else, and its own command and serve command join iobench's from here. It hashes a
// buffer n times and reports the rate.
func init() {
	workload.Register(workload.Workload{
		Name:    "example-sha256",
		AnyImpl: true, // no impl to start: the impl is a label
		Spec: scenario.WorkloadSpec{Params: map[string]scenario.ParamSpec{
			"n": {Type: scenario.Int, Check: scenario.Positive, Doc: "hashes to compute"},
		}},
		Run:     runExample,
		Command: func() *cobra.Command { return exampleCommand("example-sha256", "hashes computed") },
		Serve:   []func() *cobra.Command{func() *cobra.Command { return exampleCommand("example-sha256", "hashes served") }},
	})
}

// exampleCommand computes -n hashes and says how many, as what.
func exampleCommand(use, what string) *cobra.Command {
	var n int64
	cmd := &cobra.Command{Use: use, Short: "Hash a buffer n times", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := scenario.Run{Workload: use, Impl: "go-sha256", Params: map[string]any{"n": n}}
			rec, err := runExample(cmd.Context(), &workload.Env{}, r)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d %s\n", rec.Counts.Succeeded, what)
			return nil
		}}
	cmd.Flags().Int64VarP(&n, "number", "n", 1, "hashes to compute")
	return cmd
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

// TestExampleWorkloadCommands: the example workload's own command and its serve command are
// iobench's, with their flags, though no file of this package but the test defines them.
func TestExampleWorkloadCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"example-sha256", "-n", "300"}, "300 hashes computed\n"},
		{[]string{"serve", "example-sha256", "-n", "200"}, "200 hashes served\n"},
	} {
		if code, stdout, stderr := runCLI(tc.args...); code != 0 || stdout != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, stdout, _ := runCLI("--help")
	if code != 0 || !strings.Contains(stdout, "example-sha256 Hash a buffer n times") {
		t.Errorf("iobench --help: exit %d, no line for the example's command:\n%s", code, stdout)
	}
	if code, _, stderr := runCLI("serve", "example-sha256", "--bogus"); code != 2 || !strings.Contains(stderr, "unknown flag: --bogus; see 'iobench serve example-sha256 --help'") {
		t.Errorf("serve example-sha256 --bogus: exit %d, stderr %q; want exit 2 naming the command", code, stderr)
	}
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
