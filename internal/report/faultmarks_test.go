package report

import (
	"testing"
	"time"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/result"
)

// TestFaultMarks puts each fault of a record on its over-time chart as a vertical line at the
// second it took effect, as high as the chart's highest value.
func TestFaultMarks(t *testing.T) {
	rec := &result.Record{Throughput: result.Throughput{Unit: "req/s"},
		Series: []result.Point{{Second: 1, Span: 1, Completed: 100}, {Second: 2, Span: 1, Completed: 40, Errors: 5}, {Second: 3, Span: 1, Completed: 90}}}
	if c := series(rec, "x", "a", 0); len(c.Lines) != 2 {
		t.Fatalf("without faults: %d lines, want completed and errors", len(c.Lines))
	}
	rec.SetSection(fault.Key, &fault.Record{Faults: []fault.Event{{Fault: "kill-sut@50%", At: result.Duration(1500 * time.Millisecond), Recovery: fault.NotRecovered}}})
	c := series(rec, "x", "a", 0)
	if len(c.Lines) != 3 {
		t.Fatalf("%d lines, want a fault mark after completed and errors", len(c.Lines))
	}
	m := c.Lines[2]
	if m.Label != "kill-sut@50%: not recovered" || len(m.Points) != 2 || m.Points[0] != [2]float64{1.5, 0} || m.Points[1] != [2]float64{1.5, 100} {
		t.Errorf("mark %+v", m)
	}
}
