package report

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/bus"
	"github.com/iobench/iobench/internal/workload/fanout"
	"github.com/iobench/iobench/internal/workload/publish"
)

// fanoutRec is a fanout run of impl on route at size ("c10 n300") with an overlap ratio.
func fanoutRec(impl, route, size string, tp, overlap float64, verdict string, start int) *result.Record {
	r := crafted("fanout", impl, route[1:], "closed", tp, 30000, start)
	r.Case = size
	r.SetSection(fanout.Name, &fanout.Record{Route: route, Overlap: overlap, Verdict: verdict, CallsVerified: true,
		Handling: &result.Latency{Count: 10, Percentiles: []result.Percentile{{P: 50, Value: 20000 / overlap}}}})
	return r
}

// TestGroupsByCase checks that fanout runs group by impl, route and size, and pair sync with
// both async routes of the same impl and size only.
func TestGroupsByCase(t *testing.T) {
	var recs []*result.Record
	for i, size := range []string{"c5 n100", "c10 n300"} {
		recs = append(recs,
			fanoutRec("go-fanout", "/sync", size, 400, 0.95, "no overlap", 10*i),
			fanoutRec("go-fanout", "/async-overlap", size, 780, 1.85, "overlapped", 10*i+1),
			fanoutRec("python-fanout", "/async", size, 390, 0.9, "no overlap", 10*i+2),
			fanoutRec("python-fanout", "/sync", size, 380, 0.92, "no overlap", 10*i+3))
	}
	groups := Aggregate(recs)
	if len(groups) != 8 {
		t.Fatalf("%d groups, want 8 (impl x route x size)", len(groups))
	}
	ratios := Ratios(groups)
	if len(ratios) != 4 {
		t.Fatalf("%d ratios, want 4: each impl's async route beside its own sync, per size", len(ratios))
	}
	for _, r := range ratios {
		if r.Sync.Impl != r.Async.Impl || r.Sync.Case != r.Async.Case {
			t.Errorf("ratio pairs %v with %v", r.Sync, r.Async)
		}
	}
	var b strings.Builder
	if err := Markdown(&b, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| go-fanout | /async-overlap | closed c10 n300 | 1.85 | overlapped | 10.81ms |",
		"| go-fanout (async-overlap) | 1.95× |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWorkloadTables: the tables the workloads register (workload.Workload.Tables) are in the
// terminal summary, summary.md and report.html, ordered by id and before the common tables, and
// only where their workload's records give them rows.
func TestWorkloadTables(t *testing.T) {
	seed := &result.Seed{Label: "symfony/messenger", Throughput: 670, Phases: map[string]float64{"commands": 670}}
	phased := crafted("bus", "php-messenger", "sync", "", 1000, 0, 1)
	phased.Seed, phased.Latency = seed, nil
	phased.SetSection(bus.Name, &bus.Record{Phases: []result.Phase{{Name: "commands", Mean: 1000, PeakChart: 1500}}})
	pub := crafted("publish", "go-amqp091", "async", "closed", 900, 0, 2)
	pub.SetSection(publish.Name, &publish.Record{CountedBy: "confirms", Broker: publish.Rate{Mean: 900}})
	pub.Counts.Errors = map[string]int64{"connect": 1}
	recs := []*result.Record{phased, pub, fanoutRec("go-fanout", "/sync", "c5 n100", 400, 0.95, "no overlap", 3)}
	titles := []string{"Did the call and the work overlap? (fanout)", "Beside the seed, phase by phase (bus)",
		"Broker-accepted vs client write rate (publish)", "Errors by class"}
	for name, out := range renderAll(t, recs) {
		at := -1
		for _, title := range titles {
			i := strings.Index(out, title)
			if i < 0 || i < at {
				t.Errorf("%s: %q missing or out of order", name, title)
			}
			at = i
		}
	}
	phased.Seed = nil // no seed row: no phase row, so no phases table
	for name, out := range renderAll(t, recs) {
		if strings.Contains(out, titles[1]) {
			t.Errorf("%s: the phases table without a seed row", name)
		}
	}
}
