package report

import (
	"fmt"
	"slices"
	"strings"
)

// overlapRow is one group of fanout runs: its route's overlap of upstream call and local work.
type overlapRow struct {
	Key      Key
	Route    string
	Overlap  Spread // of the runs' overlap ratios
	Handling Spread // of the runs' median handling times, in microseconds
	P50, P99 Spread // of the runs' latency p50 and p99, apart, in microseconds
	Verdict  string // the runs' verdicts, "mixed: a, b" when they differ
	Calls    bool   // every run made exactly one upstream call per request
}

// overlapRows returns a row per group of fanout runs, in the groups' order.
func overlapRows(groups []Group) []overlapRow {
	var rows []overlapRow
	for _, g := range groups {
		var ratios, handling []float64
		var verdicts []string
		row := overlapRow{Key: g.Key, P50: g.P50, P99: g.P99, Calls: true}
		for _, r := range g.Records {
			f := r.Fanout
			if f == nil {
				continue
			}
			row.Route, row.Calls = f.Route, row.Calls && f.CallsVerified
			ratios = append(ratios, f.Overlap)
			if f.Handling != nil && f.Handling.Count > 0 {
				handling = append(handling, f.Handling.At(50))
			}
			if !slices.Contains(verdicts, f.Verdict) {
				verdicts = append(verdicts, f.Verdict)
			}
		}
		if len(ratios) == 0 {
			continue
		}
		row.Overlap, row.Handling = SpreadOf(ratios), SpreadOf(handling)
		row.Verdict = strings.Join(verdicts, ", ")
		if len(verdicts) > 1 {
			row.Verdict = "mixed: " + row.Verdict
		}
		rows = append(rows, row)
	}
	return rows
}

const overlapNote = "Overlap ratio = (upstream delay + work) / the service's median handling time from its own " +
	"Server-Timing under load (median over the repeats): about 1.0 when the call and the work ran one after the " +
	"other, about 2.0 when they fully overlapped. Latency p50 and p99 are set apart, so a gap made by the tail " +
	"does not pass for overlap."

func (r overlapRow) cells() []string {
	calls := "yes"
	if !r.Calls {
		calls = "NO"
	}
	return []string{r.Key.ImplLabel(), r.Route, dash(r.Key.Load()), fmt.Sprintf("%.2f", r.Overlap.Median), r.Verdict,
		LatencyText(r.Handling), LatencyText(r.P50), LatencyText(r.P99), calls}
}

// overlapSection is the fanout runs' overlap table.
func overlapSection(groups []Group) section {
	s := section{ID: "overlap", Title: "Did the call and the work overlap? (fanout)", Note: overlapNote,
		Head: []string{"impl", "route", "load", "overlap ratio", "verdict", "handling p50", "latency p50", "latency p99", "one call per request"},
		Num:  []bool{false, false, false, true, false, true, true, true, false}}
	for _, r := range overlapRows(groups) {
		s.Rows = append(s.Rows, r.cells())
	}
	return s
}
