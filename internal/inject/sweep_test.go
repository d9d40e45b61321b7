package inject

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/workload"
)

// sweepGroup is a group of one bus record: impl in mode at rate, with postgres injected at
// latencyUS, the relay's r and L' as given.
func sweepGroup(impl, mode string, latencyUS int64, rate, r, added float64) workload.TableGroup {
	return sweepGroupK(impl, mode, latencyUS, rate, r, added, 1)
}

// sweepGroupK is sweepGroup with k turns outstanding at once at its peak.
func sweepGroupK(impl, mode string, latencyUS int64, rate, r, added float64, k int64) workload.TableGroup {
	rec := &result.Record{Workload: "bus", Impl: impl, Mode: mode, Throughput: result.Throughput{Mean: rate}}
	rec.SetSection(SectionKey, &Section{"postgres": {LatencyUS: latencyUS, TurnsPerOp: r, AddedUSPerTurn: added, PeakInFlight: k}})
	MarkCase(rec)
	return workload.TableGroup{Workload: "bus", Label: impl, Records: []*result.Record{rec}, P99: stats.Spread{N: 1, Median: 4000}}
}

// TestSweepTable: a sync impl's prediction is 1/(t0 + r·(L' − L'0)) from its 0 ms point, the
// measured rate is set over it, an async impl over the same impl's sync mode, and the charts
// have a measured line per impl and a prediction for the sync one.
func TestSweepTable(t *testing.T) {
	// t0 = 1 ms; at +2 ms, r = 2 and L' - L'0 = 2000 µs: predicted 1/(1 + 4) ms = 200/s.
	tab := SweepTable([]workload.TableGroup{
		sweepGroup("go-bus", "async", 2000, 1000, 2, 2050),
		sweepGroup("go-bus", "sync", 2000, 180, 2, 2050),
		sweepGroup("go-bus", "sync", 0, 1000, 2, 50),
	})
	if tab.ID != "inject-bus" || len(tab.Rows) != 3 {
		t.Fatalf("table %q with rows %q", tab.ID, tab.Rows)
	}
	want := [][]string{
		{"postgres +0s", "go-bus sync", "1000.0", "4.00", "2.00", "50", "1", "1000.0", "1.00", "–"},
		{"postgres +2ms", "go-bus async", "1000.0", "4.00", "2.00", "2050", "1", "–", "–", "5.6× go-bus sync"},
		{"postgres +2ms", "go-bus sync", "180.0", "4.00", "2.00", "2050", "1", "200.0", "0.90", "–"},
	}
	for i, row := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(row, "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, tab.Rows[i], row)
		}
	}
	if len(tab.Charts) != 2 || len(tab.Charts[0].Lines) != 3 || !tab.Charts[0].Lines[1].Dashed || tab.Charts[0].Lines[1].Label != "go-bus sync predicted" || len(tab.Charts[1].Lines) != 2 {
		t.Errorf("charts %+v: want throughput (two impls and a dashed prediction) and p99 (two impls)", tab.Charts)
	}
	// Two sync workers waiting together (k = 2) share the wait: 1/(1 ms + 3 · 1000 µs / 2) = 400/s.
	two := SweepTable([]workload.TableGroup{sweepGroupK("php", "sync", 0, 1000, 3, 100, 2), sweepGroupK("php", "sync", 1000, 380, 3, 1100, 2)})
	if len(two.Rows) != 2 || two.Rows[1][7] != "400.0" || two.Rows[1][8] != "0.95" {
		t.Errorf("k = 2: rows %q, want a prediction of 400.0/s and 0.95", two.Rows)
	}
	if SweepTable([]workload.TableGroup{{Workload: "bus", Records: []*result.Record{{}}}}).Rows != nil {
		t.Error("a table of runs without injection has rows")
	}
}
