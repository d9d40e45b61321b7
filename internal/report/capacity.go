package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/units"
)

// capacityOf is a group's capacity at its SLO: the median answer of its searches that found the
// service's knee (Known), else the most a search showed the service sustained before it ran
// into something else (the generator, the ceiling), which is a lower bound and no ratio's.
type capacityOf struct {
	Rate  float64
	Known bool
	Text  string
}

// groupCapacity reads the capacity sections of g's records; ok is false when none has one.
func groupCapacity(g Group) (c capacityOf, ok bool) {
	var answers []float64
	var other *capacity.Record
	for _, r := range g.Counted {
		sec := capacity.Section(r)
		switch {
		case sec == nil:
			continue
		case sec.Bound == capacity.Service && sec.MaxSustainableRate != nil:
			answers = append(answers, *sec.MaxSustainableRate)
		case other == nil || lowerBound(sec) > lowerBound(other):
			other = sec
		}
		ok = true
	}
	switch {
	case len(answers) > 0:
		slices.Sort(answers)
		m := answers[len(answers)/2]
		if len(answers)%2 == 0 {
			m = (answers[len(answers)/2-1] + m) / 2
		}
		return capacityOf{Rate: m, Known: true, Text: units.RateText(m, "req/s")}, true
	case other == nil:
		return c, ok
	case lowerBound(other) == 0:
		return capacityOf{Text: "none: " + boundText(other)}, true
	}
	return capacityOf{Rate: lowerBound(other), Text: fmt.Sprintf("≥ %s, %s", units.RateText(lowerBound(other), "req/s"), boundText(other))}, true
}

// lowerBound is what a search showed the service sustains at least: its answer at the ceiling,
// else the highest passing rate.
func lowerBound(sec *capacity.Record) float64 {
	if sec.MaxSustainableRate != nil {
		return *sec.MaxSustainableRate
	}
	return sec.Bracket.Low
}

// boundTexts say what a search that found no knee ran into, by its bound.
var boundTexts = map[string]string{capacity.Generator: "generator-bound", capacity.Connections: "connection-starved",
	capacity.Ceiling: "the ceiling", capacity.Service: "every step failed"}

// boundText says what a search that found no knee ran into.
func boundText(sec *capacity.Record) string {
	if t, ok := boundTexts[sec.Bound]; ok {
		return t
	}
	if sec.Interrupted {
		return "interrupted"
	}
	return "unsettled: " + sec.Reason
}

// capacityNote says how to read the capacity table.
const capacityNote = "The highest rate each impl sustained with every SLO holding (iobench http --find-max; load: max in a " +
	"scenario), the median of its searches. \"≥ X, generator-bound\": the generator could not load the service past X " +
	"(or the ceiling was reached), so its capacity is at least X; such rows are left out of the ratios. async ÷ sync: " +
	"the same impl's async route or mode over its sync one; ÷ go: over the Go impl's capacity in the same mode and case."

// capacitySection is the table of the groups' capacities at their SLOs, with the ratios.
func capacitySection(groups []Group) section {
	s := section{ID: "capacity", Title: "Capacity at the SLO", Note: capacityNote,
		Head: []string{"workload", "load", "impl", "mode", "SLO", "capacity", "async ÷ sync", "÷ go"},
		Num:  []bool{false, false, false, false, false, true, true, true}}
	caps := map[Key]capacityOf{}
	for _, g := range groups {
		if c, ok := groupCapacity(g); ok {
			caps[g.Key] = c
		}
	}
	for _, g := range groups {
		c, ok := caps[g.Key]
		if !ok {
			continue
		}
		k := g.Key
		s.Rows = append(s.Rows, []string{k.Workload, dash(k.Load()), k.ImplLabel(), dash(k.Mode), sloOf(g), c.Text,
			capacityRatio(c, caps, syncOf(k)), capacityRatio(c, caps, goOf(k, caps))})
	}
	return s
}

// sloOf is the SLO of g's first search.
func sloOf(g Group) string {
	for _, r := range g.Counted {
		if sec := capacity.Section(r); sec != nil {
			return strings.Join(sec.SLO, ", ")
		}
	}
	return "–"
}

// capacityRatio is c over the capacity of the group at other, "–" when either is not a known capacity
// or other is c's own group.
func capacityRatio(c capacityOf, caps map[Key]capacityOf, other *Key) string {
	if other == nil {
		return "–"
	}
	o, ok := caps[*other]
	if !ok || !o.Known || !c.Known || o.Rate == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", c.Rate/o.Rate)
}

// syncOf is the key of k's sync counterpart (the same impl and case in mode sync), nil for a
// group that is not async.
func syncOf(k Key) *Key {
	if !strings.HasPrefix(k.Mode, "async") {
		return nil
	}
	s := k
	s.Mode = "sync"
	if k.Variant == k.Mode {
		s.Variant = "sync"
	}
	return &s
}

// goOf is the key of the Go impl's group beside k (go-WORKLOAD, the same mode, load and case;
// its default variant first), nil when there is none or k is it.
func goOf(k Key, caps map[Key]capacityOf) *Key {
	var best *Key
	for o := range caps {
		if o.Impl != "go-"+k.Workload || o.Impl == k.Impl || o.Mode != k.Mode || o.LoadModel != k.LoadModel || o.Case != k.Case {
			continue
		}
		if best == nil || len(o.ImplLabel()) < len(best.ImplLabel()) ||
			(len(o.ImplLabel()) == len(best.ImplLabel()) && o.ImplLabel() < best.ImplLabel()) {
			best = &o
		}
	}
	return best
}
