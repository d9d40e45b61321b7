package main

import (
	"strings"
	"testing"
)

// seed2 is the embedded scenario that `iobench publish seed2` names (package publish).
const seed2 = "seed2-publish.yaml"

// TestShippedIsTheFile: an embedded scenario as runone.RunSuite loads it (`iobench publish
// seed2`) is the suite that `iobench run scenarios/seed2-publish.yaml` loads from the file: same
// name, same runs, same impls.
func TestShippedIsTheFile(t *testing.T) {
	shipped, err := loadSuite([]string{shippedArg + seed2}, "../../impls", false)
	if err != nil {
		t.Fatal(err)
	}
	file, err := loadSuite([]string{"../../scenarios/" + seed2}, "../../impls", false)
	if err != nil {
		t.Fatal(err)
	}
	if shipped.Name != file.Name || len(shipped.Runs) != len(file.Runs) || len(shipped.Runs) == 0 {
		t.Fatalf("shipped %q with %d runs, file %q with %d", shipped.Name, len(shipped.Runs), file.Name, len(file.Runs))
	}
	for i, r := range shipped.Runs {
		if f := file.Runs[i]; r.ID != f.ID || r.Impl != f.Impl {
			t.Errorf("run %d: shipped %s (%s), file %s (%s)", i, r.ID, r.Impl, f.ID, f.Impl)
		}
	}
}

// TestPublishSeed2RunsAsRun: `iobench publish seed2`, the publish workload's command, runs
// through `iobench run`'s code (runone.RunSuite): it has run's flags, and loads the scenario
// and refuses a results folder that cannot be written as run does, in one line and exit 2
// before anything starts.
func TestPublishSeed2RunsAsRun(t *testing.T) {
	code, stdout, stderr := runCLI("publish", "seed2", "--full", "--impls-dir", "../../impls", "--results", "/dev/null/results")
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--results:") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line about --results", code, stdout, stderr)
	}
}
