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

// ratesTable sets each publisher's broker-accepted rate beside its client write rate
// (workload.Workload.Tables).
func ratesTable(groups []workload.TableGroup) workload.Table {
	t := workload.Table{ID: "publish-rates", Title: "Broker-accepted vs client write rate (publish)", Note: ratesNote,
		Head: []string{"impl", "counted by", "broker-accepted", "client write", "client ÷ broker", "drain after the last write"},
		Num:  []bool{false, false, true, true, true, true}}
	for _, g := range groups {
		var broker, client, drain []float64
		var counted []string
		for _, r := range g.Records {
			if p := Section(r); p != nil {
				broker = append(broker, p.Broker.Mean)
				if v, ok := workload.Figure(r, "client_write"); ok {
					client = append(client, v)
				}
				drain = append(drain, float64(p.Drain.Std().Microseconds()))
				if !slices.Contains(counted, p.CountedBy) {
					counted = append(counted, p.CountedBy)
				}
			}
		}
		if len(broker) == 0 {
			continue
		}
		b, c := stats.SpreadOf(broker), stats.SpreadOf(client)
		written := units.None
		if c.N > 0 {
			written = units.RateText(c.Median, "msg/s")
		}
		t.Rows = append(t.Rows, []string{g.Label, strings.Join(counted, ", "), units.RateText(b.Median, "msg/s"),
			written, units.RatioText(c.Over(b)), stats.SpreadOf(drain).MicrosText()})
	}
	return t
}
