package main

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/workload/hello/hellotest"
)

// TestHTTPNoSuccessExits1 runs the http command against a server whose every answer fails
// --expect-status: it prints what it measured, names the failures as such, and exits 1 with one
// line saying no request succeeded, as the exit policy has it for a run that failed.
func TestHTTPNoSuccessExits1(t *testing.T) {
	code, stdout, stderr := runCLI("http", "-t1", "-c2", "-n", "200", "--quiet", "--expect-status", "201", hellotest.URL(t))
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	if want := "Responses failing --expect-status 201: 200"; !strings.Contains(stdout, want) || strings.Contains(stdout, "Non-2xx") {
		t.Errorf("output lacks %q or still says Non-2xx:\n%s", want, stdout)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "no request succeeded: 200 failed (status 200)") {
		t.Errorf("stderr %q: want one line saying no request succeeded", stderr)
	}
}

// TestHTTPSomeSuccessExits0 checks the other side: a run in which requests succeeded exits 0.
func TestHTTPSomeSuccessExits0(t *testing.T) {
	if code, _, stderr := runCLI("http", "-t1", "-c2", "-n", "200", "--quiet", "--expect-status", "200", hellotest.URL(t)); code != 0 {
		t.Fatalf("exit %d, want 0; stderr %q", code, stderr)
	}
}
