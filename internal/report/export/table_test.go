package export

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/result"
)

// TestTableOfCapacity: a record with a section that is a table (a --find-max search's steps)
// prints that table, one row per step; a record without one prints nothing and says so.
func TestTableOfCapacity(t *testing.T) {
	rec := &result.Record{Workload: "http"}
	rec.SetSection(capacity.Key, &capacity.Record{Steps: []capacity.StepRecord{
		{N: 1, Phase: "climb", TargetRate: 1000, Achieved: 1000, Verdict: capacity.Pass, Why: "p99 5 ms < 20 ms"},
		{N: 2, Phase: "climb", TargetRate: 2000, Achieved: 1500, Verdict: capacity.Service, Why: "p99 200 ms ≥ 20 ms, achieved 1,500"},
	}})
	var b strings.Builder
	if ok, err := Table(&b, rec); !ok || err != nil {
		t.Fatalf("Table: %v, %v", ok, err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "n" || rows[2][1] != "climb" || rows[2][3] != "2000" || rows[2][len(rows[2])-1] != "p99 200 ms ≥ 20 ms, achieved 1,500" {
		t.Errorf("rows (%v):\n%s", err, b.String())
	}
	if ok, err := Table(&b, &result.Record{Workload: "http"}); ok || err != nil {
		t.Errorf("a record without a table: %v, %v", ok, err)
	}
}
