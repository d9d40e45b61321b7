package inject

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/workload"
)

// CaseOf is rec's injections as its case names them, "postgres +2ms", several joined by ", ";
// "" without injection.
func CaseOf(rec *result.Record) string {
	sec := SectionOf(rec)
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(sec)) {
		out = append(out, fmt.Sprintf("%s +%v", kind, time.Duration(sec[kind].LatencyUS)*time.Microsecond))
	}
	return strings.Join(out, ", ")
}

// MarkCase appends rec's injections to its case (CaseOf), so that each latency of a sweep is a
// group of its own in the report, named with what it injected; a workload calls it once its case
// is set.
func MarkCase(rec *result.Record) {
	if c := CaseOf(rec); c != "" {
		rec.Case = strings.TrimSpace(rec.Case + " " + c)
	}
}

// sweepPoint is one group of a sweep: an impl, the rest of its case, at one injection; its
// figures are the medians of its repeats.
type sweepPoint struct {
	line, impl, mode string // line: the impl, its mode and the rest of its case (one line of the charts)
	inject           string // CaseOf
	x                float64
	rate, p99        float64            // operations/s; ms
	turns, added, k  map[string]float64 // by service kind: r, L' (µs) and k (turns outstanding at once, at least 1)
	predicted        float64            // sync, with its 0 ms point: 1/(t0 + Σ r·(L' − L'₀)/k); 0 otherwise
}

// SweepTable is the table of a workload's runs with injected latency (workload.TableFunc): at each
// latency, each impl's rate and p99, the relay's r, L' and k, for a sync impl the rate its 0 ms
// point predicts and the measured rate over it, for an async one its rate over a sync one's; and
// two charts against the latency, throughput (with each sync impl's prediction, dashed) and p99.
func SweepTable(groups []workload.TableGroup) workload.Table {
	pts := sweepPoints(groups)
	t := workload.Table{Note: sweepNote,
		Head: []string{"injected", "impl", "rate (/s)", "p99 (ms)", "r (turns/op)", "L' (µs/turn)", "k", "predicted (/s)", "measured ÷ predicted", "async ÷ sync"},
		Num:  []bool{false, false, true, true, true, true, true, true, true, false}}
	if len(pts) == 0 {
		return t
	}
	t.ID = "inject-" + groups[0].Workload
	t.Title = "Injected latency (" + groups[0].Workload + "): throughput and p99 against the latency the relay added"
	predict(pts)
	for _, p := range pts {
		t.Rows = append(t.Rows, p.row(pts))
	}
	t.Charts = sweepCharts(pts)
	return t
}

const sweepNote = "Each run's relay (iobench serve proxy) sat between the SUT and the service named, the 0 ms point " +
	"included. r is the relay's turns (round trips) per operation, L' the latency it measured it added per turn, from " +
	"each answer's arrival at its socket to the end of its write, k the most turns the SUT had outstanding at once " +
	"(its sync workers waiting together: 1 for one consumer). A sync impl's prediction is 1/(t0 + Σ r·(L' − L'0)/k), " +
	"t0 the time per operation at its 0 ms point and L'0 the relay's cost there; an async impl's rate is set over the " +
	"same impl's sync mode where there is one, else over the fastest sync impl. Medians of the repeats."

// sweepPoints reads the groups that injected latency, ordered by latency, then line.
func sweepPoints(groups []workload.TableGroup) []*sweepPoint {
	var out []*sweepPoint
	for _, g := range groups {
		if len(g.Records) == 0 || SectionOf(g.Records[0]) == nil {
			continue
		}
		r0 := g.Records[0]
		inj := CaseOf(r0)
		p := &sweepPoint{impl: g.Label, mode: r0.Mode, inject: inj, p99: g.P99.Median / 1000,
			turns: map[string]float64{}, added: map[string]float64{}, k: map[string]float64{}}
		p.line = strings.Join(slices.DeleteFunc([]string{g.Label, r0.Mode, strings.TrimSpace(strings.TrimSuffix(r0.Case, inj))},
			func(s string) bool { return s == "" }), " ")
		var rates []float64
		perKind := map[string][3][]float64{}
		for _, rec := range g.Records {
			rates = append(rates, rec.Throughput.Mean)
			for kind, e := range SectionOf(rec) {
				v := perKind[kind]
				perKind[kind] = [3][]float64{append(v[0], e.TurnsPerOp), append(v[1], e.AddedUSPerTurn), append(v[2], float64(max(e.PeakInFlight, 1)))}
			}
		}
		p.rate = stats.SpreadOf(rates).Median
		for kind, v := range perKind {
			p.turns[kind], p.added[kind], p.k[kind] = stats.SpreadOf(v[0]).Median, stats.SpreadOf(v[1]).Median, stats.SpreadOf(v[2]).Median
		}
		for _, e := range SectionOf(r0) {
			p.x += float64(e.LatencyUS) / 1000
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b *sweepPoint) int { return cmp.Or(cmp.Compare(a.x, b.x), cmp.Compare(a.line, b.line)) })
	return out
}

// predict sets each sync point's prediction from the 0 ms point of its line.
func predict(pts []*sweepPoint) {
	for _, p := range pts {
		i := slices.IndexFunc(pts, func(o *sweepPoint) bool { return o.line == p.line && o.x == 0 })
		if p.mode != "sync" || i < 0 || pts[i].rate <= 0 {
			continue
		}
		base := pts[i]
		extra := 0.0 // µs per operation beyond the 0 ms point's
		for kind, r := range p.turns {
			extra += r * (p.added[kind] - base.added[kind]) / p.k[kind]
		}
		p.predicted = 1 / (1/base.rate + extra/1e6)
	}
}

func (p *sweepPoint) row(pts []*sweepPoint) []string {
	var turns, added, k []string
	for _, kind := range slices.Sorted(maps.Keys(p.turns)) {
		turns = append(turns, fmt.Sprintf("%.2f", p.turns[kind]))
		added = append(added, fmt.Sprintf("%.0f", p.added[kind]))
		k = append(k, fmt.Sprintf("%g", p.k[kind]))
	}
	pred, ratio := "–", "–"
	if p.predicted > 0 {
		pred, ratio = fmt.Sprintf("%.1f", p.predicted), fmt.Sprintf("%.2f", p.rate/p.predicted)
	}
	return []string{p.inject, p.line, fmt.Sprintf("%.1f", p.rate), fmt.Sprintf("%.2f", p.p99),
		strings.Join(turns, " "), strings.Join(added, " "), strings.Join(k, " "), pred, ratio, p.overSync(pts)}
}

// overSync is an async point's rate over a sync one's at the same injection: the same impl's
// sync mode where there is one, else the fastest sync impl; "–" for a sync point or none.
func (p *sweepPoint) overSync(pts []*sweepPoint) string {
	if !strings.HasPrefix(p.mode, "async") { // fanout's async and async-overlap
		return "–"
	}
	var best *sweepPoint
	for _, o := range pts {
		if o.mode != "sync" || o.inject != p.inject || o.rate <= 0 {
			continue
		}
		if o.impl == p.impl {
			best = o
			break
		}
		if best == nil || o.rate > best.rate {
			best = o
		}
	}
	if best == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f× %s", p.rate/best.rate, best.line)
}

// sweepCharts draws the points against the latency: throughput, with each sync line's
// prediction dashed, and p99.
func sweepCharts(pts []*sweepPoint) []workload.Chart {
	rate := workload.Chart{Title: "throughput against injected latency (dashed: a sync impl's prediction)", X: "injected latency (ms)", Y: "operations/s (log scale)", LogY: true}
	p99 := workload.Chart{Title: "p99 against injected latency", X: "injected latency (ms)", Y: "p99 (ms, log scale)", LogY: true}
	var lines []string
	for _, p := range pts {
		if !slices.Contains(lines, p.line) {
			lines = append(lines, p.line)
		}
	}
	for i, name := range lines {
		measured := workload.ChartLine{Label: name, Color: i}
		predicted := workload.ChartLine{Label: name + " predicted", Color: i, Dashed: true}
		latency := workload.ChartLine{Label: name, Color: i}
		for _, p := range pts {
			if p.line != name {
				continue
			}
			measured.Points = append(measured.Points, [2]float64{p.x, p.rate})
			latency.Points = append(latency.Points, [2]float64{p.x, p.p99})
			if p.predicted > 0 {
				predicted.Points = append(predicted.Points, [2]float64{p.x, p.predicted})
			}
		}
		rate.Lines = append(rate.Lines, measured)
		if len(predicted.Points) > 1 {
			rate.Lines = append(rate.Lines, predicted)
		}
		p99.Lines = append(p99.Lines, latency)
	}
	return []workload.Chart{rate, p99}
}
