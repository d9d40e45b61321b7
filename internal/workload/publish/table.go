package publish

import (
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

const ratesNote = "The broker-accepted rate counts at the broker (its confirms, or its queue's count); the " +
	"client write rate is what the publishers wrote to their sockets, the figure a publisher prints about itself " +
	"(for a publisher in a process of its own, which iobench cannot count, the rate it timed and printed). " +
	"Medians over the repeats; a ratio above 1 is what a client-side count overstates."

const leftNote = "Each variant that improves on a seed-faithful one (its manifest's improves_on: connected before " +
	"the clock starts, messages built without allocating, ...) beside that one, from the same runs as the rates " +
	"table: medians over the repeats; a ratio above 1 is what the seed's code shape cost."

// groupRates are a group's publish figures over its repeats.
type groupRates struct {
	broker, client, drain stats.Spread
	counted               []string
	impl, variant, of     string // the impl, its variant, and the variant it improves on
}

// ratesOf reads g's publish figures; false when g has no publish record.
func ratesOf(g workload.TableGroup) (groupRates, bool) {
	var broker, client, drain []float64
	var gr groupRates
	for _, r := range g.Records {
		p := Section(r)
		if p == nil {
			continue
		}
		gr.impl, gr.variant, gr.of = r.Impl, p.Variant, p.ImprovesOn
		broker = append(broker, p.Broker.Mean)
		if v, ok := workload.Figure(r, "client_write"); ok {
			client = append(client, v)
		}
		drain = append(drain, float64(p.Drain.Std().Microseconds()))
		if !slices.Contains(gr.counted, p.CountedBy) {
			gr.counted = append(gr.counted, p.CountedBy)
		}
	}
	gr.broker, gr.client, gr.drain = stats.SpreadOf(broker), stats.SpreadOf(client), stats.SpreadOf(drain)
	return gr, len(broker) > 0
}

// rateText is a spread's median as a rate, "–" without one.
func rateText(s stats.Spread) string {
	if s.N == 0 {
		return units.None
	}
	return units.RateText(s.Median, "msg/s")
}

// ratesTable sets each publisher's broker-accepted rate beside its client write rate
// (workload.Workload.Tables).
func ratesTable(groups []workload.TableGroup) workload.Table {
	t := workload.Table{ID: "publish-rates", Title: "Broker-accepted vs client write rate (publish)", Note: ratesNote,
		Head: []string{"impl", "counted by", "broker-accepted", "client write", "client ÷ broker", "drain after the last write"},
		Num:  []bool{false, false, true, true, true, true}}
	for _, g := range groups {
		gr, ok := ratesOf(g)
		if !ok {
			continue
		}
		t.Rows = append(t.Rows, []string{g.Label, strings.Join(gr.counted, ", "), rateText(gr.broker),
			rateText(gr.client), units.RatioText(gr.client.Over(gr.broker)), gr.drain.MicrosText()})
	}
	return t
}

// leftTable sets each variant that improves on a seed-faithful one (improves_on) beside it, by
// what the broker accepted and what the client wrote: what the seed's code left on the table
// (workload.Workload.Tables).
func leftTable(groups []workload.TableGroup) workload.Table {
	t := workload.Table{ID: "publish-seed-left", Title: "What the seed's code left on the table (publish)", Note: leftNote,
		Head: []string{"in the seed's shape", "improved", "broker-accepted: seed's shape", "improved", "÷",
			"client write: seed's shape", "improved", "÷"},
		Num: []bool{false, false, true, true, true, true, true, true}}
	type key struct{ load, impl, variant string }
	byVariant := map[key]workload.TableGroup{}
	for _, g := range groups {
		if gr, ok := ratesOf(g); ok {
			byVariant[key{g.Load, gr.impl, gr.variant}] = g
		}
	}
	for _, g := range groups {
		gr, ok := ratesOf(g)
		if !ok || gr.of == "" {
			continue
		}
		seedG, ok := byVariant[key{g.Load, gr.impl, gr.of}]
		if !ok {
			continue
		}
		seed, _ := ratesOf(seedG)
		t.Rows = append(t.Rows, []string{seedG.Label, g.Label,
			rateText(seed.broker), rateText(gr.broker), units.RatioText(gr.broker.Over(seed.broker)),
			rateText(seed.client), rateText(gr.client), units.RatioText(gr.client.Over(seed.client))})
	}
	return t
}
