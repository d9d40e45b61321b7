package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
)

func TestCompareCommand(t *testing.T) {
	base := copyRecords(t, "hello-closed-2.json", "hello-open-2.json")
	newer := copyRecords(t, "hello-closed-1.json", "hello-open-1.json")
	code, out, errs := runCLI("compare", base, newer)
	if code != 0 || !strings.Contains(out, "hello go-hello async closed") || !strings.Contains(out, "hello go-hello async open") {
		t.Fatalf("exit %d, stderr %s:\n%s", code, errs, out)
	}
	// The closed loop's throughput fell by about a third between these two records: judged on
	// one run a side only with --allow-few. The open loops ran at two rates: never judged.
	code, _, errs = runCLI("compare", "--allow-few", "--fail-if", "throughput<-5%", "--fail-if", "errors>+0%", base, newer)
	if code != 1 || !strings.Contains(errs, "limit(s) crossed: hello go-hello async closed: throughput -34.7% < -5%") ||
		strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("violation: exit %d, stderr %q", code, errs)
	}
	closedBase, closedNew := copyRecords(t, "hello-closed-2.json"), copyRecords(t, "hello-closed-1.json")
	if code, _, errs := runCLI("compare", "--allow-few", "--fail-if", "throughput<-50%", closedBase, closedNew); code != 0 {
		t.Errorf("within the limit: exit %d, %s", code, errs)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		want, says string
	}{
		{"one run a side", []string{"--fail-if", "throughput<-50%", closedBase, closedNew}, "too few repeats to tell (1 and 1)", "too few repeats to tell (1 and 1)"},
		{"two rates", []string{"--allow-few", "--fail-if", "throughput<-50%", base, newer}, "setups differ: rate 63079.915 vs 41163.765", "setups differ"},
	} {
		code, out, errs := runCLI(append([]string{"compare"}, tc.args...)...)
		if code != 3 || !strings.Contains(errs, "not judged: ") || !strings.Contains(errs, tc.want) || !strings.Contains(out, tc.says) {
			t.Errorf("%s: exit %d, stderr %q; want exit 3, not judged, with %q", tc.name, code, errs, tc.want)
		}
	}
}

func TestCompareBadInput(t *testing.T) {
	hello := copyRecords(t, "hello-closed-1.json")
	buses := copyRecords(t, "bus-sync-1.json", "bus-async-1.json")
	old := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(old, []byte(`{"schema_version": 2}`), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"one argument", []string{"compare", hello}, "BASE and NEW"},
		{"bad threshold", []string{"compare", "--fail-if", "p99 up 10%", hello, hello}, "--fail-if: threshold"},
		{"bad alpha", []string{"compare", "--alpha", "2", hello, hello}, "--alpha"},
		{"unreadable", []string{"compare", hello, filepath.Join(hello, "nope")}, "cannot read"},
		{"other schema", []string{"compare", hello, old}, "incompatible result schema"},
		{"nothing in common", []string{"compare", hello, buses}, "nothing to compare"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(tt.args...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 with %q", code, errs, tt.want)
			}
		})
	}
}

func TestCompareJUnit(t *testing.T) {
	base := copyRecords(t, "hello-closed-2.json", "hello-open-2.json")
	newer := copyRecords(t, "hello-closed-1.json", "hello-open-1.json")
	path := filepath.Join(t.TempDir(), "ci", "compare.xml")
	code, _, errs := runCLI("compare", "--allow-few", "--fail-if", "throughput<-5%", "--fail-if", "errors>+0%", "--junit", path, base, newer)
	if code != 1 {
		t.Fatalf("exit %d, stderr %q; want 1 (the closed loop's throughput fell by a third)", code, errs)
	}
	suites, err := junit.IngestFile(path)
	if err != nil || len(suites) != 1 || len(suites[0].Tests) != 2 {
		t.Fatalf("%s: %v, %+v", path, err, suites)
	}
	fell, errCase := suites[0].Tests[0], suites[0].Tests[1]
	if fell.Name != "throughput<-5%" || fell.Status != junit.StatusFailed ||
		!strings.Contains(fell.Message, "1 of 2 groups crossed throughput<-5%: hello go-hello async closed: throughput -34.7% < -5%") {
		t.Errorf("throughput case %+v", fell)
	}
	// The open loops ran at two rates: a gate that cannot judge them fails, never passes.
	if errCase.Name != "errors>+0%" || errCase.Status != junit.StatusFailed ||
		!strings.Contains(errCase.Message, "not judged: 1 of 2 groups: hello go-hello async open: setups differ: rate") {
		t.Errorf("errors case %+v", errCase)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no threshold", []string{"compare", "--junit", path, base, newer}, "add at least one --fail-if"},
		{"unwritable", []string{"compare", "--fail-if", "p99>+10%", "--junit", "/proc/no/such/dir/x.xml", base, newer}, "--junit: cannot write"},
	} {
		code, _, errs := runCLI(tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", tt.name, code, errs, tt.want)
		}
	}
}
