package fanout

import (
	"slices"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/workload"
)

// TestOverlapTable: a group of fanout runs gets one row, with the median overlap ratio and
// handling time of its repeats, their verdicts ("mixed" when they differ), the group's latency
// apart, and NO when any run made other than one upstream call per request.
func TestOverlapTable(t *testing.T) {
	rec := func(overlap float64, verdict string, calls bool) *result.Record {
		r := &result.Record{Workload: Name}
		r.SetSection(Name, &Record{Route: "/async", Overlap: overlap, Verdict: verdict, CallsVerified: calls,
			Handling: &result.Latency{Count: 10, Percentiles: []result.Percentile{{P: 50, Value: 20000 / overlap}}}})
		return r
	}
	groups := []workload.TableGroup{
		{Workload: Name, Label: "go-fanout", Load: "closed c10 n300", Records: []*result.Record{
			rec(1.8, VerdictFull, true), rec(1.9, VerdictFull, true), rec(1.7, VerdictFull, true)},
			P50: stats.Spread{N: 3, Median: 11000}, P99: stats.Spread{N: 3, Median: 30000}},
		{Workload: Name, Label: "python-fanout", Records: []*result.Record{rec(0.9, VerdictNone, true), rec(1.5, VerdictPartial, false)}},
		{Workload: Name, Label: "no-section", Records: []*result.Record{{Workload: Name}}},
	}
	got := overlapTable(groups).Rows
	want := [][]string{
		{"go-fanout", "/async", "closed c10 n300", "1.80", "overlapped", "11.11ms", "11.00ms", "30.00ms", "yes"},
		{"python-fanout", "/async", "–", "1.20", "mixed: no overlap, partial overlap", "17.78ms", "–", "–", "NO"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}
