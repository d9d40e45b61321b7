package main

import (
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/hello/hellotest"
)

// TestReportFormatsOfARealRun measures the built-in hello server with `iobench http`, then prints
// its record in each format; the export package's tests read each format back in depth.
func TestReportFormatsOfARealRun(t *testing.T) {
	url := hellotest.URL(t)
	path := filepath.Join(t.TempDir(), "hello.json")
	if code, _, errs := runCLI("http", "-t1", "-c4", "-n", "3000", "--quiet", "--json", path, url); code != 0 {
		t.Fatalf("http: exit %d: %s", code, errs)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("report", "--format", "hgrm", path)
	if code != 0 || !strings.HasPrefix(out, "# iobench http ") || !strings.Contains(out, "Value   Percentile   TotalCount 1/(1-Percentile)") ||
		!strings.Contains(out, "#[Buckets = ") || errs != "" {
		t.Errorf("hgrm: exit %d, stderr %q:\n%s", code, errs, out)
	}
	code, out, errs = runCLI("report", "--format", "csv", path)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != len(rec.Series)+1 || rows[0][0] != "t" {
		t.Errorf("csv: exit %d, %v, stderr %q:\n%s", code, err, errs, out)
	}
	code, out, errs = runCLI("report", "--format", "openmetrics", path)
	if code != 0 || !strings.HasSuffix(out, "# EOF\n") || !strings.Contains(out, `iobench_operations_succeeded_total{run="hello",workload="http"`) {
		t.Errorf("openmetrics: exit %d, stderr %q:\n%s", code, errs, out)
	}
	code, _, errs = runCLI("report", "--format", "hgrm", "--histogram", "uncorrected", path)
	if code != 2 || !strings.Contains(errs, "hello.json: this http record has no uncorrected histogram: only an open-loop run (-R) records one") {
		t.Errorf("hgrm of a closed loop's uncorrected histogram: exit %d, stderr %q", code, errs)
	}
}

func TestReportFormatOfEveryRecordOfADirectory(t *testing.T) {
	dir := copyRecords(t)
	code, out, errs := runCLI("report", "--format", "openmetrics", dir)
	if code != 0 || strings.Count(out, "iobench_operations_attempted_total{") != 8 || !strings.Contains(out, `run="bus-async-2"`) {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
}

func TestReportFormatBadInput(t *testing.T) {
	dir := copyRecords(t, "hello-closed-1.json", "bus-sync-1.json")
	hello := filepath.Join(dir, "hello-closed-1.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{"report", "--format", "json", hello}, `--format "json": choose one of hgrm, csv, openmetrics`},
		{"csv of two records", []string{"report", "--format", "csv", dir}, "--format csv takes one record, got 2"},
		{"hgrm with --out", []string{"report", "--format", "hgrm", "--out", t.TempDir(), hello}, "drop --out, --title and --quiet"},
		{"histogram alone", []string{"report", "--histogram", "lag", hello}, "add --format hgrm"},
		{"histogram with csv", []string{"report", "--format", "csv", "--histogram", "lag", hello}, "add --format hgrm"},
		{"series without csv", []string{"report", "--format", "hgrm", "--series", hello}, "--series chooses the per-second series of --format csv"},
		{"unknown histogram", []string{"report", "--format", "hgrm", "--histogram", "p99", hello}, `no histogram "p99"`},
		{"bus has no lag", []string{"report", "--format", "hgrm", "--histogram", "lag", filepath.Join(dir, "bus-sync-1.json")}, "no lag histogram"},
		{"no records", []string{"report", "--format", "csv"}, "report needs result records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(tt.args...)
			if code != 2 || out != "" || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("exit %d, stdout %d bytes, stderr %q; want exit 2, nothing on stdout, one line with %q", code, len(out), errs, tt.want)
			}
		})
	}
}
