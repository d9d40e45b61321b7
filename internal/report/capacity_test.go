package report

import (
	"testing"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/result"
)

// withKey sets the record's workload, mode and case, as a load: max run of that workload would.
func withKey(rec *result.Record, workload, mode string) *result.Record {
	rec.Workload, rec.Mode, rec.Case = workload, mode, "find-max"
	rec.Counts.Attempted, rec.Counts.Succeeded = 1000, 1000
	return rec
}

// TestCapacitySection: each group's capacity, async ÷ sync of the same impl and each impl ÷ go;
// a generator-bound search is a lower bound, shown as such and left out of every ratio.
func TestCapacitySection(t *testing.T) {
	bound := withKey(capacityRecord(t, "node-fanout", 1e9), "http", "sync")
	sec := capacity.Section(bound)
	sec.Bound, sec.MaxSustainableRate, sec.Bracket.Low = capacity.Generator, nil, 3000
	recs := []*result.Record{
		withKey(capacityRecord(t, "go-http", 2000), "http", "sync"),
		withKey(capacityRecord(t, "go-http", 4000), "http", "async-overlap"),
		withKey(capacityRecord(t, "php-fanout", 500), "http", "sync"),
		withKey(capacityRecord(t, "php-fanout", 1000), "http", "async-overlap"),
		bound,
		withKey(capacityRecord(t, "node-fanout", 1000), "http", "async-overlap"),
	}
	s := capacitySection(Aggregate(recs))
	got := map[string][]string{}
	for _, row := range s.Rows {
		got[row[2]+" "+row[3]] = row[5:]
	}
	near := func(rate float64) string { // the search's answer: within its 2% below the knee
		for _, r := range recs {
			if c := capacity.Section(r); c.MaxSustainableRate != nil && *c.MaxSustainableRate <= rate && *c.MaxSustainableRate > 0.97*rate {
				return groupText(t, r)
			}
		}
		return "?"
	}
	want := map[string][]string{
		"go-http sync":              {near(2000), "–", "–"},
		"go-http async-overlap":     {near(4000), "2.00x", "–"},
		"php-fanout sync":           {near(500), "–", "0.25x"},
		"php-fanout async-overlap":  {near(1000), "2.00x", "0.25x"},
		"node-fanout sync":          {"≥ 3,000 req/s, generator-bound", "–", "–"},
		"node-fanout async-overlap": {near(1000), "–", "0.25x"},
	}
	for k, w := range want {
		g := got[k]
		if len(g) != 3 || g[0] != w[0] || g[1] != w[1] || g[2] != w[2] {
			t.Errorf("%s: capacity, async ÷ sync, ÷ go = %q, want %q", k, g, w)
		}
	}
}

// groupText is the capacity text of r's search alone.
func groupText(t *testing.T, r *result.Record) string {
	t.Helper()
	c, ok := groupCapacity(Group{Counted: []*result.Record{r}})
	if !ok || !c.Known {
		t.Fatalf("no known capacity in %s's record", r.Impl)
	}
	return c.Text
}
