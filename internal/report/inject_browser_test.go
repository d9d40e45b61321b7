package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
)

// TestSweepChartsInChromium: the quick suite's go-bus runs, sync and async, given injections of
// 0, 2 and 5 ms, make the bus's sweep table, and report.html draws its two charts (throughput
// with the sync line's prediction, and p99) under it in headless Chromium, none blank.
func TestSweepChartsInChromium(t *testing.T) {
	var recs []*result.Record
	for _, name := range []string{"bus.go-bus_sync.r1.json", "bus.go-bus_async.r1.json"} {
		for i, us := range []int64{0, 2000, 5000} {
			r, err := result.Load(filepath.Join("testdata", "quick", name))
			if err != nil {
				t.Fatal(err)
			}
			r.Throughput.Mean /= float64(1 + 2*i)
			r.SetSection(inject.SectionKey, &inject.Section{"postgres": {LatencyUS: us, AddedUSPerTurn: float64(us + 100),
				Turns: 100, TurnsPerOp: 2, Connections: 1, PeakInFlight: 1}})
			inject.MarkCase(r)
			recs = append(recs, r)
		}
	}
	d := buildPage(recs, HTMLOptions{}).Data
	if len(d.Tables) != 2 || d.Tables[0].Box != "charts-inject-bus" || len(d.Tables[0].Lines) != 3 {
		t.Fatalf("table charts %+v: want throughput (sync, its prediction, async) and p99 under #inject-bus", d.Tables)
	}
	f, _ := openPage(t, recs) // every chart drawn, none blank
	for _, s := range []string{"Injected latency (bus)", "throughput against injected latency", "p99 against injected latency"} {
		if !strings.Contains(f.Text, s) {
			t.Errorf("the page does not show %q", s)
		}
	}
}
