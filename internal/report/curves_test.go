package report

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/result"
)

// capacityRecord is a --find-max record of impl against a simulated service whose knee is k:
// 2 ms below it, 200 ms above.
func capacityRecord(t *testing.T, impl string, k float64) *result.Record {
	t.Helper()
	s := capacity.Defaults()
	s.SLOs = []capacity.SLO{{Metric: "p99", Limit: 20 * time.Millisecond}}
	step := func(_ context.Context, rate float64, _ int) (capacity.StepResult, error) {
		l := capacity.Latencies{P50: time.Millisecond, P99: 2 * time.Millisecond, P999: 3 * time.Millisecond, Max: 4 * time.Millisecond}
		r := capacity.StepResult{Target: rate, Achieved: rate, Requests: int64(5 * rate), Latency: l, Service: l}
		if rate > k {
			r.Achieved, r.Latency.P50, r.Latency.P99, r.Latency.P999 = k, 100*time.Millisecond, 200*time.Millisecond, 250*time.Millisecond
		}
		return r, nil
	}
	sec, err := capacity.Search(context.Background(), s, step, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &result.Record{SchemaVersion: result.SchemaVersion, Workload: "http", Impl: impl, LoadModel: "open",
		Parameters: map[string]any{"find_max": true}, Throughput: result.Throughput{Unit: "req/s", Mean: k},
		Latency: &result.Latency{Unit: "us", Count: 1000, Percentiles: []result.Percentile{{P: 50, Value: 1000}, {P: 99, Value: 2000}}}}
	rec.SetSection(capacity.Key, sec)
	return rec
}

// TestCurvesData: the --find-max records sharing an SLO make one curve chart: three lines per run
// (p50, p99, p99.9 against the achieved rate, in ms), the SLO's limit, and each run's knee.
func TestCurvesData(t *testing.T) {
	recs := []*result.Record{capacityRecord(t, "go", 2000), capacityRecord(t, "node", 1000)}
	d := buildPage(recs, HTMLOptions{}).Data
	if len(d.Curves) != 1 {
		t.Fatalf("%d curve charts, want 1", len(d.Curves))
	}
	c := d.Curves[0]
	if c.SLO != 20 || len(c.Lines) != 6 || len(c.Knees) != 2 || !strings.Contains(c.Title, "p99<20ms") {
		t.Fatalf("chart %+v: want the SLO at 20 ms, 6 lines, 2 knees", c)
	}
	for _, k := range c.Knees {
		if k.Point[1] != 2 || (k.Point[0] != 2000 && k.Point[0] != 1000) {
			t.Errorf("knee %+v: want at its knee's rate with p99 2 ms", k)
		}
	}
	for _, l := range c.Lines {
		for i := 1; i < len(l.Points); i++ {
			if l.Points[i][0] < l.Points[i-1][0] {
				t.Errorf("%s: points not in the order of the achieved rate: %v", l.Label, l.Points)
				break
			}
		}
	}
}

// TestCurvesInChromium draws the capacity curves of two runs in headless Chromium: every chart
// drawn, the capacity section in the table of contents.
func TestCurvesInChromium(t *testing.T) {
	f, _ := openPage(t, []*result.Record{capacityRecord(t, "go", 2000), capacityRecord(t, "node", 1000)})
	if !strings.Contains(f.Text, "Capacity at an SLO") {
		t.Error("the page has no capacity section")
	}
}
