package fanout

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/workloadtest"

	// The hello workload, registered so that go-hello is an impl this test binary knows: one
	// that does not declare fanout.
	_ "github.com/iobench/iobench/internal/workload/hello"
)

// TestFanoutBadInput checks that every mistake on the fanout command line is one line and exit 2,
// before anything starts.
func TestFanoutBadInput(t *testing.T) {
	impls := []string{"--impls-dir", implsRoot, "--state-dir", t.TempDir()}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no impl", []string{"fanout"}, "--impl is required"},
		{"unknown route", []string{"fanout", "--impl", "go-fanout", "--route", "/pool"}, `--route "/pool": use one of /sync, /async, /async-overlap`},
		{"zero connections", []string{"fanout", "--impl", "go-fanout", "-c", "0"}, "at least 1"},
		{"negative requests", []string{"fanout", "--impl", "go-fanout", "-n", "-5"}, "requests must be positive"},
		{"rate with count", []string{"fanout", "--impl", "go-fanout", "-R", "100", "-n", "10"}, "do not mix"},
		{"bad duration", []string{"fanout", "--impl", "go-fanout", "-d", "soon"}, "cannot read duration"},
		{"unknown flag", []string{"fanout", "--impl", "go-fanout", "--bogus"}, "unknown flag"},
		{"unknown impl", []string{"fanout", "--impl", "go-nosuch"}, "go-nosuch"},
		{"impl without fanout", []string{"fanout", "--impl", "go-hello"}, "does not declare the fanout workload"},
		{"unknown variant", []string{"fanout", "--impl", "go-fanout:nosuch"}, "nosuch"},
		{"serve fanout without upstream", []string{"serve", "fanout", "--listen", "127.0.0.1:0"}, "no upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args[0] == "fanout" {
				args = append(append([]string{}, args...), impls...)
			}
			code, _, stderr := workloadtest.Run(args...)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line containing %q", code, stderr, tt.want)
			}
		})
	}
}

// TestFanoutCommand runs `iobench fanout` against go-fanout with bounded load and reads its
// record; then against a test impl that calls the upstream twice per request, which exits 1
// with the counts.
func TestFanoutCommand(t *testing.T) {
	state := t.TempDir()
	path := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := workloadtest.Run("fanout", "--impl", "go-fanout", "--route", "/async-overlap", "-c", "5", "-n", "100",
		"--warmup", "200ms", "--quiet", "--json", path, "--impls-dir", implsRoot, "--state-dir", state)
	if code != 0 || !strings.Contains(stdout, "Overlap ratio") || !strings.Contains(stdout, "exactly one upstream call per request") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	rec, err := result.Load(path)
	if err != nil || Section(rec) == nil || !Section(rec).CallsVerified || rec.Counts.Succeeded != 100 || rec.Mode != "async-overlap" {
		t.Fatalf("record %+v, %v", rec, err)
	}
	code, _, stderr = workloadtest.Run("fanout", "--impl", "python-badcalls:twice", "-c", "2", "-n", "20", "--warmup", "0", "--quiet",
		"--impls-dir", "testdata/impls", "--state-dir", state)
	if code != 1 || !strings.Contains(stderr, "the upstream counted 40 calls for 20 responses (warm-up included; 2.00 per request)") {
		t.Fatalf("twice: exit %d, stderr %q; want exit 1 with the counts", code, stderr)
	}
}
