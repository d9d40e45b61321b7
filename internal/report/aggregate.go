package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

// Key identifies the records that are repeats of one another: the same workload, impl, variant,
// mode, load model and case.
type Key struct {
	Workload  string
	Impl      string
	Variant   string // the impl's variant; empty for records without one
	Mode      string // sync or async; empty where the workload has no modes
	LoadModel string // closed or open; empty where the workload has no load model (bus)
	Case      string // what else sets runs apart (fanout: connections and size, "c10 n300"); empty for most
}

// KeyOf returns the group key of rec.
func KeyOf(rec *result.Record) Key {
	return Key{Workload: rec.Workload, Impl: rec.Impl, Variant: rec.Variant, Mode: rec.Mode, LoadModel: rec.LoadModel, Case: rec.Case}
}

// Load returns the load model with the case after it, as the tables' load column shows it:
// "closed", or "closed c10 n300".
func (k Key) Load() string {
	return strings.TrimSpace(k.LoadModel + " " + k.Case)
}

// ImplLabel returns the impl as a scenario names it: "go-hello", or "python-pika-publisher:single"
// when the variant is not simply named after its mode.
func (k Key) ImplLabel() string {
	if k.Variant != "" && k.Variant != k.Mode {
		return k.Impl + ":" + k.Variant
	}
	return k.Impl
}

// AsyncLabel is the impl of an async group as the sync/async tables show it: the ImplLabel, with
// the mode after it when it is not plain async ("go-fanout (async-overlap)").
func (k Key) AsyncLabel() string {
	if k.Mode == "async" || k.Mode == "" {
		return k.ImplLabel()
	}
	return k.ImplLabel() + " (" + k.Mode + ")"
}

// String returns the key's non-empty parts separated by spaces: "hello go-hello async closed".
func (k Key) String() string {
	var parts []string
	for _, s := range []string{k.Workload, k.ImplLabel(), k.Mode, k.Load()} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// Spread summarizes one figure over the repeats of a group (stats.Spread).
type Spread = stats.Spread

// SpreadOf returns the median, minimum and maximum of xs (zero for none).
func SpreadOf(xs []float64) Spread { return stats.SpreadOf(xs) }

// Group is the repeats of one variant, with their figures summarized over the repeats that
// count: those that verified or reproduced the seed flaw their variant expects (Status). The
// others are in Records and Left, and in no figure.
type Group struct {
	Key        Key
	Records    []*result.Record // every repeat, in the order they started
	Counted    []*result.Record // the repeats whose figures count, in the same order
	Left       []LeftOut        // the repeats left out of every figure, and why
	Unit       string           // throughput unit, e.g. "req/s"
	Throughput Spread           // of Throughput.Mean
	P50, P99   Spread           // of Latency.At(50) and At(99), in microseconds; N is 0 without latency
	Verified   bool             // every record verified, no seed flaw reproduced (Status)
	Status     string           // the worst Status of the records
	Expect     []string         // the seed flaws the variant expects (record.Expect)
	Warnings   int              // warnings over all records
	CPUPer1k   Spread           // the SUT's CPU per 1,000 successful operations, in microseconds; N is 0 without
	PeakRSS    uint64           // the SUT's highest peak RSS over the repeats; 0 without
	Seed       *result.Seed     // the seed's figure for this setup, if a record carries one
	Errors     map[string]int64 // errors by class, summed over the repeats
	// Answered is of every response per second, flawed ones included (see AnsweredRate): what wrk
	// counts as requests.
	Answered Spread
}

// LeftOut is a run left out of its group's figures: it failed its own check (Why).
type LeftOut struct {
	Record *result.Record
	Why    string
}

// Name names the run left out: its run id in a suite, else its workload, impl and start.
func (l LeftOut) Name() string { return runName(l.Record) }

// Aggregate groups records by Key, sorted by workload, impl, mode (sync first) and load model
// (closed first). Records keep their start order within a group; the same records in any order
// give the same groups (Canonical).
func Aggregate(recs []*result.Record) []Group {
	idx := map[Key]int{}
	var groups []Group
	for _, r := range Canonical(recs) {
		if r == nil {
			continue
		}
		k := KeyOf(r)
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, Group{Key: k, Verified: true, Status: StatusVerified, Expect: r.Expect})
		}
		groups[i].Records = append(groups[i].Records, r)
	}
	for i := range groups {
		g := &groups[i]
		sort.SliceStable(g.Records, func(a, b int) bool { return g.Records[a].StartedAt.Before(g.Records[b].StartedAt) })
		var tp, p50, p99, cpu, answered []float64
		for _, r := range g.Records {
			st := Status(r)
			g.Verified = g.Verified && st == StatusVerified
			g.Status = worse(g.Status, st)
			g.addErrors(r.Counts.Errors)
			g.Warnings += len(r.Warnings)
			if st == StatusFailed {
				g.Left = append(g.Left, LeftOut{Record: r, Why: Why(r)})
				continue
			}
			g.Counted = append(g.Counted, r)
			tp = append(tp, r.Throughput.Mean)
			answered = append(answered, AnsweredRate(r))
			if r.Latency != nil && r.Latency.Count > 0 {
				p50, p99 = append(p50, r.Latency.At(50)), append(p99, r.Latency.At(99))
			}
			g.costOf(r, &cpu)
		}
		for _, r := range g.Records {
			if g.Seed == nil {
				g.Seed = r.Seed
			}
			if g.Unit == "" {
				g.Unit = r.Throughput.Unit
			}
		}
		g.Throughput, g.P50, g.P99, g.CPUPer1k = SpreadOf(tp), SpreadOf(p50), SpreadOf(p99), SpreadOf(cpu)
		g.Answered = SpreadOf(answered)
	}
	sort.SliceStable(groups, func(a, b int) bool { return less(groups[a].Key, groups[b].Key) })
	return groups
}

func less(a, b Key) bool {
	if a.Workload != b.Workload {
		return a.Workload < b.Workload
	}
	if a.Impl != b.Impl {
		return a.Impl < b.Impl
	}
	if a.Case != b.Case {
		return a.Case < b.Case
	}
	if ra, rb := rank(a.Mode, "sync", "async", "async-overlap"), rank(b.Mode, "sync", "async", "async-overlap"); ra != rb {
		return ra < rb
	}
	if a.Variant != b.Variant {
		return a.Variant < b.Variant
	}
	return rank(a.LoadModel, "closed", "open") < rank(b.LoadModel, "closed", "open")
}

func rank(s string, order ...string) string {
	for i, o := range order {
		if s == o {
			return fmt.Sprint(i)
		}
	}
	return "9" + s
}

// Verified says whether a run's own check proved its figures (workload.Verification, the one
// check every reader uses).
func Verified(rec *result.Record) bool { return workload.Verification(rec).OK }

// Why says why a run's own check failed, in one line; "" when it passed.
func Why(rec *result.Record) string { return workload.Verification(rec).Why }

// Ratio compares an async group with a sync group of the same workload and load model (and,
// where the groups have a case, of the same impl and case: fanout's routes of one impl).
type Ratio struct {
	Workload   string
	LoadModel  string // with the case after it, where there is one (Key.Load)
	Sync       Key
	Async      Key
	Throughput float64 // async median / sync median; 0 when the sync median is 0
	P99        float64 // async p99 median / sync p99 median; 0 when either is missing
}

// Ratios pairs every async group (async-overlap too) with every sync group of the same workload
// and load model; groups with a case pair only within one impl and case.
func Ratios(groups []Group) []Ratio {
	var out []Ratio
	for _, s := range groups {
		if s.Key.Mode != "sync" {
			continue
		}
		for _, a := range groups {
			if !strings.HasPrefix(a.Key.Mode, "async") || a.Key.Workload != s.Key.Workload || a.Key.LoadModel != s.Key.LoadModel ||
				a.Key.Case != s.Key.Case || (s.Key.Case != "" && a.Key.Impl != s.Key.Impl) {
				continue
			}
			r := Ratio{Workload: s.Key.Workload, LoadModel: s.Key.Load(), Sync: s.Key, Async: a.Key}
			r.Throughput = div(a.Throughput.Median, s.Throughput.Median)
			if a.P99.N > 0 && s.P99.N > 0 {
				r.P99 = div(a.P99.Median, s.P99.Median)
			}
			out = append(out, r)
		}
	}
	return out
}

// Unpaired returns the workloads that have groups but no sync/async pair, for a note.
func Unpaired(groups []Group, ratios []Ratio) []string {
	paired := map[string]bool{}
	for _, r := range ratios {
		paired[r.Workload] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, g := range groups {
		if w := g.Key.Workload; !paired[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func div(a, b float64) float64 { return units.Div(a, b) }

// RateText is the group's throughput median with its unit, "–" when no run counts.
func (g Group) RateText() string {
	if g.Throughput.N == 0 {
		return "–"
	}
	return RateText(g.Throughput.Median, g.Unit)
}
