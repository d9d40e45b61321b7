package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/bus"
)

// loadRecords reads the real records saved under testdata/records.
func loadRecords(t testing.TB) []*result.Record { return loadRecordsFrom(t, "records") }

// loadRecordsFrom reads every record under testdata/dir.
func loadRecordsFrom(t testing.TB, dir string) []*result.Record {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records under testdata/%s: %v", dir, err)
	}
	var recs []*result.Record
	for _, f := range files {
		r, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// crafted returns a record with a known throughput and p99 (µs).
func crafted(wl, impl, mode, load string, tp, p99 float64, start int) *result.Record {
	return &result.Record{
		SchemaVersion: result.SchemaVersion, Workload: wl, Impl: impl, Mode: mode, LoadModel: load,
		StartedAt:  time.Date(2026, 1, 1, 0, 0, start, 0, time.UTC),
		Counts:     result.Counts{Attempted: 10, Succeeded: 10},
		Throughput: result.Throughput{Unit: "req/s", Mean: tp},
		Latency:    &result.Latency{Unit: "us", Count: 10, Percentiles: []result.Percentile{{P: 99, Value: p99}}},
	}
}

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{3}, Spread{N: 1, Median: 3, Min: 3, Max: 3}},
		{[]float64{4, 1, 3, 2}, Spread{N: 4, Median: 2.5, Min: 1, Max: 4}},
		{[]float64{5, 1, 3}, Spread{N: 3, Median: 3, Min: 1, Max: 5}},
	}
	for _, tt := range tests {
		if got := SpreadOf(tt.in); got != tt.want {
			t.Errorf("SpreadOf(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestAggregateAndRatios(t *testing.T) {
	recs := []*result.Record{
		crafted("w", "b-async", "async", "closed", 300, 900, 2),
		crafted("w", "a-sync", "sync", "closed", 100, 1000, 1),
		crafted("w", "a-sync", "sync", "closed", 120, 2000, 3),
		crafted("w", "b-async", "async", "closed", 360, 1100, 4),
		crafted("w", "a-sync", "sync", "open", 50, 10, 5),
		crafted("v", "x", "", "", 7, 0, 6),
	}
	recs[5].Latency = nil
	recs[5].Warnings = []string{"one", "two"}
	recs[2].Verification = &result.Verification{Why: "the store's count: 9 counted for 10 responses"}
	groups := Aggregate(recs)
	var keys []string
	for _, g := range groups {
		keys = append(keys, g.Key.String())
	}
	want := []string{"v x", "w a-sync sync closed", "w a-sync sync open", "w b-async async closed"}
	if len(keys) != len(want) {
		t.Fatalf("groups %v, want %v", keys, want)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Errorf("group %d = %q, want %q", i, keys[i], want[i])
		}
	}
	sync := groups[1]
	if sync.Throughput != (Spread{N: 1, Median: 100, Min: 100, Max: 100}) || sync.P99.Median != 1000 || sync.Verified ||
		len(sync.Records) != 2 || len(sync.Left) != 1 || sync.Left[0].Record != recs[2] || !strings.Contains(sync.Left[0].Why, "9 counted") {
		t.Errorf("sync group %+v", sync)
	}
	if groups[0].P99.N != 0 || groups[0].Warnings != 2 || !groups[0].Verified {
		t.Errorf("group without latency %+v", groups[0])
	}
	ratios := Ratios(groups)
	if len(ratios) != 1 || ratios[0].Throughput != 330.0/100 || ratios[0].P99 != 1000.0/1000 {
		t.Fatalf("ratios %+v", ratios)
	}
	if u := Unpaired(groups, ratios); len(u) != 1 || u[0] != "v" {
		t.Errorf("unpaired %v", u)
	}
}

func TestVerified(t *testing.T) {
	ok := crafted("w", "i", "", "", 1, 1, 0)
	unverified := crafted("bus", "i", "", "", 1, 1, 0)
	unverified.SetSection(bus.Name, &bus.Record{Verified: false})
	intr := crafted("w", "i", "", "", 1, 1, 0)
	intr.Interrupted = true
	none := crafted("w", "i", "", "", 1, 1, 0)
	none.Counts = result.Counts{}
	for _, tt := range []struct {
		rec  *result.Record
		want bool
	}{{ok, true}, {unverified, false}, {intr, false}, {none, false}} {
		if got := Verified(tt.rec); got != tt.want {
			t.Errorf("Verified(%s) = %v", tt.rec.Workload, got)
		}
	}
}
