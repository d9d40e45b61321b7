package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recordsDir is where real records are kept for the report tests.
const recordsDir = "../../internal/report/testdata/records"

// copyRecords copies the named test records (all when none) into a new directory.
func copyRecords(t *testing.T, names ...string) string {
	t.Helper()
	if len(names) == 0 {
		files, _ := filepath.Glob(filepath.Join(recordsDir, "*.json"))
		for _, f := range files {
			names = append(names, filepath.Base(f))
		}
	}
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(recordsDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReportRegenerates(t *testing.T) {
	dir := copyRecords(t)
	code, out, errs := runCLI("report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"== hello go-hello async closed (", "Requests/sec:", "Latency Distribution",
		"bus: 10000 commands, sync consumer", "spread (min–max)", "bus: async go-bus is 2.39× the throughput of sync go-bus",
		"Report of 8 runs: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "| hello | go-hello | async | open | 2 |") {
		t.Errorf("summary.md: %v\n%s", err, md)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(page), "window.IOBENCH_DATA") {
		t.Errorf("report.html: %v", err)
	}
	// A second report over the same directory reads only the records, not its own output.
	if code, _, errs := runCLI("report", "--quiet", dir); code != 0 {
		t.Errorf("second report: exit %d: %s", code, errs)
	}
}

func TestReportBadInput(t *testing.T) {
	dir := copyRecords(t, "hello-closed-1.json")
	other := copyRecords(t, "hello-open-1.json")
	old := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(old, []byte(`{"schema_version": 0, "workload": "http"}`), 0o644)
	junk := filepath.Join(t.TempDir(), "junk.json")
	os.WriteFile(junk, []byte(`not json`), 0o644)
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no argument", []string{"report"}, "report needs result records"},
		{"missing file", []string{"report", filepath.Join(dir, "nope.json")}, "cannot read"},
		{"empty directory", []string{"report", t.TempDir()}, "holds no result records"},
		{"old schema", []string{"report", old}, "schema_version 0, this iobench reads 1"},
		{"not a record", []string{"report", junk}, "not a result record"},
		{"several directories", []string{"report", dir, other}, "--out DIR"},
		{"unwritable out", []string{"report", "--out", filepath.Join(notDir, "sub"), dir}, "--out: cannot write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(tt.args...)
			if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, errs, tt.want)
			}
		})
	}
}

// TestReportRefusesMixedBuilds: records of two iobench builds never pool as repeats: one line,
// naming both, exit 2. The same directory given twice is read once.
func TestReportRefusesMixedBuilds(t *testing.T) {
	dir := copyRecords(t)
	if code, out, errs := runCLI("report", "--quiet", dir, dir); code != 0 || !strings.Contains(out, "Report of 8 runs: ") {
		t.Fatalf("the directory twice: exit %d: %s%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`"iobench_commit": *"[^"]*"`).ReplaceAllString(string(b), `"iobench_commit": "0000000other"`)
	if edited == string(b) {
		t.Fatalf("%s has no iobench_commit", files[0])
	}
	if err := os.WriteFile(files[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI("report", "--quiet", dir)
	if code != 2 || !strings.Contains(errs, "two iobench builds (commit ") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("exit %d, want 2 with one line naming the builds: %q", code, errs)
	}
}
