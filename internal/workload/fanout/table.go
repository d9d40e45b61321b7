package fanout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

// overlapRow is one group of fanout runs: its route's overlap of upstream call and local work.
type overlapRow struct {
	Group    workload.TableGroup
	Route    string
	Overlap  stats.Spread // of the runs' overlap ratios
	Handling stats.Spread // of the runs' median handling times, in microseconds
	Verdict  string       // the runs' verdicts, "mixed: a, b" when they differ
	Calls    bool         // every run made exactly one upstream call per request
}

// overlapRows returns a row per group of fanout runs, in the groups' order.
func overlapRows(groups []workload.TableGroup) []overlapRow {
	var rows []overlapRow
	for _, g := range groups {
		var ratios, handling []float64
		var verdicts []string
		row := overlapRow{Group: g, Calls: true}
		for _, r := range g.Records {
			f := Section(r)
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
		row.Overlap, row.Handling = stats.SpreadOf(ratios), stats.SpreadOf(handling)
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
	return []string{r.Group.Label, r.Route, units.OrNone(r.Group.Load), fmt.Sprintf("%.2f", r.Overlap.Median), r.Verdict,
		r.Handling.MicrosText(), r.Group.P50.MicrosText(), r.Group.P99.MicrosText(), calls}
}

// overlapTable is the fanout runs' overlap table (workload.Workload.Tables).
func overlapTable(groups []workload.TableGroup) workload.Table {
	t := workload.Table{ID: "overlap", Title: "Did the call and the work overlap? (fanout)", Note: overlapNote,
		Head: []string{"impl", "route", "load", "overlap ratio", "verdict", "handling p50", "latency p50", "latency p99", "one call per request"},
		Num:  []bool{false, false, false, true, false, true, true, true, false}}
	for _, r := range overlapRows(groups) {
		t.Rows = append(t.Rows, r.cells())
	}
	return t
}
