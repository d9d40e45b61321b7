package httpcmd_test

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
	"github.com/iobench/iobench/internal/workload/hello"
)

// TestFindMaxBadInput: what does not go with --find-max, its settings without it, and a bad SLO
// are each one line and exit 2, before any load.
func TestFindMaxBadInput(t *testing.T) {
	url := "http://127.0.0.1:1/"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--find-max", url}, "--find-max needs at least one --slo"},
		{[]string{"--find-max", "--slo", "p99<20ms", "-R", "100", url}, "-R (--rate) does not go with --find-max"},
		{[]string{"--find-max", "--slo", "p99<20ms", "-n", "100", url}, "-n (--requests) does not go with --find-max"},
		{[]string{"--find-max", "--slo", "p99<20ms", "-d", "5s", url}, "-d (--duration) does not go with --find-max"},
		{[]string{"--find-max", "--slo", "p99<20ms", "--agents-local", "2", url}, "--agents-local does not go with --find-max"},
		{[]string{"--find-max", "--slo", "p99<20ms", "--agent", "0/2", url}, "--agent does not go with --find-max"},
		{[]string{"--slo", "p99<20ms", url}, "--slo is a setting of --find-max; add --find-max"},
		{[]string{"--ceiling", "100", url}, "--ceiling is a setting of --find-max"},
		{[]string{"--find-max", "--slo", "p99<soon", url}, `"soon" is not a positive duration`},
		{[]string{"--find-max", "--slo", "p99<20ms", "--precision", "2", url}, "--precision 2: give a fraction"},
		{[]string{"--find-max", "--slo", "p99<20ms", "--start-rate", "10", "--floor", "100", url}, "--floor 100 ≤ --start-rate 10"},
	} {
		code, _, stderr := runHTTP(tt.args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestFindMaxKnownCapacity searches a hello server of known capacity (450 req/s) with short
// steps: the one result line (with --quiet too) and a record whose capacity section holds every
// step. On a machine too busy for the generator the search may say so instead (generator-bound);
// when it names the service's knee, that knee is the server's: 400, the last rate below 450 that
// a bisection to 30% reaches from 100.
func TestFindMaxKnownCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15 s of load")
	}
	url := rawhttptest.URL(t, hello.NewMaxRate(450).Serve) + "/"
	rec, stdout := runRecord(t, "--find-max", "--slo", "p99<100ms", "--start-rate", "100", "--ceiling", "800", "--precision", "0.3",
		"--step-duration", "1s", "--warmup", "300ms", "-t", "1", url)
	sec := capacity.Section(rec)
	if sec == nil || len(sec.Steps) == 0 || strings.Count(stdout, "\n") != 1 || !strings.HasPrefix(stdout, sec.Line()) {
		t.Fatalf("stdout %q, section %+v: want the section's one line", stdout, sec)
	}
	t.Log(stdout)
	if rec.Parameters["find_max"] != true || rec.LoadModel != "open" || sec.Search.StepDuration.Seconds() != 1 {
		t.Errorf("parameters %v, load model %q, search %+v", rec.Parameters, rec.LoadModel, sec.Search)
	}
	if rec.CPUProbe <= 0 {
		t.Errorf("cpu_probe_us %g: want the machine's speed before the search", rec.CPUProbe)
	}
	if len(rec.Processes) != 1 || rec.Processes[0].Role != "generator" {
		t.Errorf("processes %+v: want the generator's cost over the answer's step", rec.Processes)
	}
	switch sec.Bound {
	case capacity.Service:
		if got := sec.MaxSustainableRate; got == nil || *got != 400 || sec.Confirmations.Passed != 3 {
			t.Errorf("answer %v, confirmations %+v: want 400 confirmed 3 of 3", got, sec.Confirmations)
		}
	case capacity.Generator:
		if sec.MaxSustainableRate != nil || !strings.HasPrefix(stdout, "generator-bound at ") {
			t.Errorf("generator-bound with an answer %v, or a line %q", sec.MaxSustainableRate, stdout)
		}
	default:
		t.Errorf("bound %q: a server of 450 req/s below the ceiling of 800 is the service's or, on a busy machine, the generator's", sec.Bound)
	}
}
