package report

import (
	"strings"
	"testing"
)

// TestCapacityInChromium opens the report of the capacity suites' real records
// (testdata/capacity: scenarios/capacity-hello.yaml and capacity-fanout.yaml, run on this
// project's busy 2-core VM) in headless Chromium: one curve chart per SLO, a curve (p50, p99,
// p99.9) per search drawn on the same axes (openPage counts every chart drawn), and the
// capacity table with its ratios' columns.
func TestCapacityInChromium(t *testing.T) {
	recs := loadRecordsFrom(t, "capacity")
	d := buildPage(recs, HTMLOptions{}).Data
	if len(d.Curves) != 2 {
		t.Fatalf("%d curve charts, want 2: one per SLO (p99<10ms, p99<100ms)", len(d.Curves))
	}
	for _, c := range d.Curves {
		if c.SLO == 0 || len(c.Lines) < 6 {
			t.Errorf("chart %q: SLO %g ms, %d lines: want the SLO's line and three lines per search, two searches or more", c.Title, c.SLO, len(c.Lines))
		}
	}
	f, _ := openPage(t, recs)
	for _, s := range []string{"Capacity at the SLO", "async ÷ sync", "÷ go", "capacity at p99<10ms", "capacity at p99<100ms"} {
		if !strings.Contains(f.Text, s) {
			t.Errorf("the page does not show %q", s)
		}
	}
}
