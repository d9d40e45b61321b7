package report

import (
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// TestBesideTheSeed: runs carrying the seed's figure are set beside it in the terminal summary,
// summary.md and report.html: the seed's rate, ours (median), the ratio, latencies and errors.
func TestBesideTheSeed(t *testing.T) {
	seed := &result.Seed{Source: "dbalabka/aerys-benchmark", Label: "ReactPHP", Throughput: 500, P50: 19500, P99: 40600, Errors: "read 810, write 55"}
	var recs []*result.Record
	for i, tp := range []float64{1000, 1200} {
		r := withSUT("php-stream-select", "seed", "closed", tp, 1, 10<<20, 10000, i+1)
		r.Seed, r.Expect = seed, []string{"content-length-mismatch"}
		r.Counts.Failed, r.Counts.Errors = 10000, map[string]int64{"length": 10000}
		r.Duration = result.Duration(10 * time.Second) // 10,000 successes and 10,000 flawed responses: 2,000/s as wrk counts
		recs = append(recs, r)
	}
	recs = append(recs, withSUT("go-hello", "async", "closed", 90000, 1, 10<<20, 10000, 3))
	for name, out := range renderAll(t, recs) {
		for _, want := range []string{"Beside the seed", "ReactPHP", "500 req/s", "1,100 req/s", "2.20×", "read 810, write 55", "length 20,000",
			"2,000 req/s as wrk counts, flawed responses included"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Count(out, "ReactPHP") != 1 {
			t.Errorf("%s: the seed's row shows %d times, want once (go-hello has no seed row)", name, strings.Count(out, "ReactPHP"))
		}
	}
}

// renderAll returns the three reports of recs by name: the terminal summary, summary.md and
// report.html.
func renderAll(t *testing.T, recs []*result.Record) map[string]string {
	t.Helper()
	var text, mdown, html strings.Builder
	if err := SummaryText(&text, recs); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&mdown, recs); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, recs, HTMLOptions{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"text": text.String(), "markdown": mdown.String(), "html": html.String()}
}
