package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
)

// Metric names, as thresholds and the table spell them.
const (
	Throughput = "throughput"
	P50        = "p50"
	P99        = "p99"
	P999       = "p99.9"
	Errors     = "errors"
	// Capacity is a --find-max record's max sustainable rate (its capacity section).
	Capacity = "capacity"
)

// Metrics are the metrics compared, in table order.
var Metrics = []string{Throughput, P50, P99, P999, Errors, Capacity}

// MinRepeats is the number of repeats per side from which the U test is used.
const MinRepeats = 3

// DefaultAlpha is the significance level when Options.Alpha is zero.
const DefaultAlpha = 0.05

// Options tune Compare.
type Options struct {
	Alpha float64 // significance level of the U test; DefaultAlpha when zero
	// AllowFew judges groups with fewer than MinRepeats repeats a side anyway, by whether their
	// min–max ranges overlap; without it such a change is printed but not judged.
	AllowFew bool
}

// Table is the comparison of two sets of records.
type Table struct {
	Alpha float64
	Rows  []Row
	// OnlyBase and OnlyNew name the groups found on one side only (not compared).
	OnlyBase, OnlyNew []string
	// Left names the runs left out of the comparison because they failed their own check
	// (report.Status), with why: "base: run (why)".
	Left []string
}

// Row is one metric of one group, base against new.
type Row struct {
	Group  string // the group key, or "base key → new key" when two different groups are compared
	Metric string
	Unit   string // "req/s", "µs" or "%" (errors, of attempted operations)
	Base   report.Spread
	New    report.Spread
	// Ratio is new median / base median: 1 when both are 0, +Inf when only base is 0.
	Ratio float64
	// UTest says the Mann-Whitney U test was used (enough repeats); P is its p-value.
	UTest bool
	P     float64
	// Significant says the change exceeds the spread of the repeats: p < α with the U test,
	// else (with Options.AllowFew) min–max ranges that do not overlap.
	Significant bool
	// Unjudged says why the change is printed but not judged better or worse, "" when it is:
	// too few repeats ("too few repeats to tell (1 and 1)"), or two setups that differ
	// ("setups differ: rate 20,000 vs 10,000").
	Unjudged string
	// Few says the row was judged on fewer than MinRepeats repeats a side (Options.AllowFew).
	Few bool
	// HigherIsBetter is true for throughput, false for latency and errors.
	HigherIsBetter bool
}

// Delta is the relative change of the medians: Ratio - 1 (+0.1 is 10% more).
func (r Row) Delta() float64 { return r.Ratio - 1 }

// Worse says the change, if real, is a regression.
func (r Row) Worse() bool {
	if r.HigherIsBetter {
		return r.Ratio < 1
	}
	return r.Ratio > 1
}

// Compare matches the groups of base and new (by workload, impl, mode and load model) and
// compares each metric they both have. When each side holds exactly one group and they differ
// (say, two impls), those two are compared.
func Compare(base, new []*result.Record, opt Options) Table {
	t := Table{Alpha: opt.Alpha}
	if t.Alpha <= 0 || t.Alpha >= 1 {
		t.Alpha = DefaultAlpha
	}
	bg, ng := report.Aggregate(base), report.Aggregate(new)
	t.Left = append(leftOut("base", bg), leftOut("new", ng)...)
	newByKey := map[report.Key]report.Group{}
	for _, g := range ng {
		newByKey[g.Key] = g
	}
	matched := map[report.Key]bool{}
	for _, b := range bg {
		if n, ok := newByKey[b.Key]; ok {
			matched[b.Key] = true
			t.Rows = append(t.Rows, rows(b.Key.String(), b, n, t.Alpha, opt.AllowFew)...)
		}
	}
	if len(matched) == 0 && len(bg) == 1 && len(ng) == 1 {
		label := bg[0].Key.String() + " → " + ng[0].Key.String()
		t.Rows = rows(label, bg[0], ng[0], t.Alpha, opt.AllowFew)
		return t
	}
	for _, b := range bg {
		if !matched[b.Key] {
			t.OnlyBase = append(t.OnlyBase, b.Key.String())
		}
	}
	for _, n := range ng {
		if !matched[n.Key] {
			t.OnlyNew = append(t.OnlyNew, n.Key.String())
		}
	}
	return t
}

// leftOut names the runs of groups left out of their figures, on one side.
func leftOut(side string, groups []report.Group) []string {
	var out []string
	for _, g := range groups {
		for _, l := range g.Left {
			out = append(out, side+": "+l.Name()+" ("+l.Why+")")
		}
	}
	return out
}

// rows compares every metric of two groups, over the runs of each that count. A change is
// judged with MinRepeats repeats a side or more (or allowFew), and only between runs of one
// setup (setupDiff).
func rows(label string, b, n report.Group, alpha float64, allowFew bool) []Row {
	var out []Row
	differ := setupDiff(b.Counted, n.Counted)
	for _, m := range Metrics {
		bv, bok := values(b.Counted, m)
		nv, nok := values(n.Counted, m)
		if !bok || !nok {
			continue
		}
		r := Row{Group: label, Metric: m, Unit: unit(m, b), Base: report.SpreadOf(bv), New: report.SpreadOf(nv),
			HigherIsBetter: m == Throughput || m == Capacity}
		r.Ratio = ratio(r.New.Median, r.Base.Median)
		switch {
		case differ != "":
			r.Unjudged = "setups differ: " + differ
		case len(bv) >= MinRepeats && len(nv) >= MinRepeats:
			r.UTest = true
			r.P = MannWhitney(bv, nv)
			r.Significant = r.P < alpha && r.Ratio != 1
		case allowFew:
			r.Few = true
			r.Significant = r.Base.Max < r.New.Min || r.New.Max < r.Base.Min
		default:
			r.Unjudged = fmt.Sprintf("too few repeats to tell (%d and %d)", len(bv), len(nv))
		}
		out = append(out, r)
	}
	return out
}

// setupKeys are the parameters that make a run's load: runs that differ in one are not repeats
// of one setup, and a change between them says nothing of a regression.
var setupKeys = []string{"connections", "threads", "rate", "duration", "requests", "n", "concurrency", "keepalive",
	"pipeline", "streams", "protocol", "http2", "count", "slo"}

// setupDiff names the parameters in which the runs of base and new differ ("rate 20000 vs
// 10000, connections 10 vs 20"), "" when they share one setup.
func setupDiff(base, new []*result.Record) string {
	var diffs []string
	for _, k := range setupKeys {
		b, n := paramValues(base, k), paramValues(new, k)
		if b != n {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", k, orNone(b), orNone(n)))
		}
	}
	return strings.Join(diffs, ", ")
}

// paramValues lists the distinct values of parameter k over recs, sorted: "10", "10 or 20".
func paramValues(recs []*result.Record, k string) string {
	var vs []string
	for _, r := range recs {
		if v, ok := r.Parameters[k]; ok {
			if s := fmt.Sprint(v); !slices.Contains(vs, s) {
				vs = append(vs, s)
			}
		}
	}
	slices.Sort(vs)
	return strings.Join(vs, " or ")
}

func orNone(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// values returns one value of metric m per record; false when a record lacks it (no latency).
func values(recs []*result.Record, m string) ([]float64, bool) {
	out := make([]float64, 0, len(recs))
	for _, r := range recs {
		switch m {
		case Throughput:
			out = append(out, r.Throughput.Mean)
		case Capacity: // only a search that found the service's knee (or the ceiling) has one
			c := capacity.Section(r)
			if c == nil || c.MaxSustainableRate == nil {
				return nil, false
			}
			out = append(out, *c.MaxSustainableRate)
		case Errors:
			c := r.Counts
			rate := 0.0
			if c.Attempted > 0 {
				rate = 100 * float64(c.Failed+c.Lost+c.Duplicated) / float64(c.Attempted)
			}
			out = append(out, rate)
		default:
			p := map[string]float64{P50: 50, P99: 99, P999: 99.9}[m]
			if r.Latency == nil || r.Latency.Count == 0 {
				return nil, false
			}
			out = append(out, r.Latency.At(p))
		}
	}
	return out, len(out) > 0
}

func unit(m string, g report.Group) string {
	switch m {
	case Throughput:
		return g.Unit
	case Capacity:
		return "req/s"
	case Errors:
		return "%"
	}
	return "µs"
}

func ratio(n, b float64) float64 {
	switch {
	case b == 0 && n == 0:
		return 1
	case b == 0:
		return math.Inf(1)
	}
	return n / b
}
