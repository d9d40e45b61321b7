package report

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// fanoutRec is a fanout run of impl on route at size ("c10 n300") with an overlap ratio.
func fanoutRec(impl, route, size string, tp, overlap float64, verdict string, start int) *result.Record {
	r := crafted("fanout", impl, route[1:], "closed", tp, 30000, start)
	r.Case = size
	r.Fanout = &result.Fanout{Route: route, Overlap: overlap, Verdict: verdict, CallsVerified: true,
		Handling: &result.Latency{Count: 10, Percentiles: []result.Percentile{{P: 50, Value: 20000 / overlap}}}}
	return r
}

// TestOverlapTable checks that fanout runs group by impl, route and size, pair sync with both
// async routes of the same impl and size only, and show their overlap in words.
func TestOverlapTable(t *testing.T) {
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
		"## Did the call and the work overlap? (fanout)",
		"| go-fanout | /async-overlap | closed c10 n300 | 1.85 | overlapped | 10.81ms |",
		"| python-fanout | /async | closed c5 n100 | 0.90 | no overlap |",
		"| go-fanout (async-overlap) | 1.95× |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, b.String())
		}
	}
}
