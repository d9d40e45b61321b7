package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
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

var overlapHead = []string{"impl", "route", "load", "overlap ratio", "verdict", "handling p50", "latency p50", "latency p99", "one call per request"}

// markdownOverlap writes the fanout runs' overlap table, when there are any.
func markdownOverlap(b *strings.Builder, groups []Group) {
	rows := overlapRows(groups)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Did the call and the work overlap? (fanout)\n\n%s\n\n", overlapNote)
	b.WriteString("| " + strings.Join(overlapHead, " | ") + " |\n|---|---|---|--:|---|--:|--:|--:|:-:|\n")
	for _, r := range rows {
		c := r.cells()
		for i := range c {
			c[i] = md(c[i])
		}
		b.WriteString("| " + strings.Join(c, " | ") + " |\n")
	}
}

// textOverlap is markdownOverlap for the terminal.
func textOverlap(w io.Writer, groups []Group) error {
	rows := overlapRows(groups)
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nDid the call and the work overlap? (fanout: (delay + work) / the service's own median handling time; 1.0 sequential, 2.0 fully overlapped)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(overlapHead, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	return tw.Flush()
}
