package bus

import (
	"fmt"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

const phasesNote = "The seed read each figure off RabbitMQ's management chart, which samples every 5 s: what it " +
	"shows at its peak is the best 5-second window, not the phase's rate. Ours gives the three apart, medians " +
	"over the repeats: the phase's mean (its messages over its duration), the best full second and the best " +
	"5-second window, the one comparable with the seed's figure. " + fillNote

// fillNote says why the fill has no seed figure beside it.
const fillNote = "The fill is not compared: ours is iobench's own Go publisher for every impl, the seed's " +
	"were each app's own (Messenger's bus in PHP, service-bus's Bunny client, which cannot run here)."

// phasesTable sets the bus runs (fill, commands, events) beside the seed's figure for each
// phase, where the scenario's seed row gives them, but the fill's (fillNote)
// (workload.Workload.Tables).
func phasesTable(groups []workload.TableGroup) workload.Table {
	t := workload.Table{ID: "phases", Title: "Beside the seed, phase by phase (bus)", Note: phasesNote,
		Head: []string{"impl", "seed's row", "phase", "seed", "ours: mean", "best 1 s", "best 5 s", "5 s ÷ mean"},
		Num:  []bool{false, false, false, true, true, true, true, true}}
	for _, g := range groups {
		if g.Seed == nil || len(g.Seed.Phases) == 0 {
			continue
		}
		for _, name := range phaseNames(g.Records) {
			mean, peak, chart := phaseSpreads(g.Records, name)
			seed := units.None
			if v, ok := g.Seed.Phases[name]; ok && name != PhaseFill { // fillNote
				seed = units.RateText(v, "msg/s")
			}
			window, ratio := units.None, units.None // a run shorter than the window has none
			if chart.N > 0 {
				window, ratio = units.RateText(chart.Median, "msg/s"), fmt.Sprintf("%.2f", chart.Over(mean))
			}
			t.Rows = append(t.Rows, []string{g.Label, g.Seed.Label, name, seed, units.RateText(mean.Median, "msg/s"),
				units.RateText(peak.Median, "msg/s"), window, ratio})
		}
	}
	return t
}

// phaseNames are the phases of the first record that has them, in its order.
func phaseNames(recs []*result.Record) []string {
	for _, r := range recs {
		if b := Section(r); b != nil && len(b.Phases) > 0 {
			var out []string
			for _, p := range b.Phases {
				out = append(out, p.Name)
			}
			return out
		}
	}
	return nil
}

// phaseSpreads returns the spreads of one phase's mean, best second and best chart window (of
// the runs that lasted one: a shorter run has none).
func phaseSpreads(recs []*result.Record, name string) (mean, peak, chart stats.Spread) {
	var m, p, c []float64
	for _, r := range recs {
		b := Section(r)
		if b == nil {
			continue
		}
		for _, ph := range b.Phases {
			if ph.Name == name {
				m, p = append(m, ph.Mean), append(p, ph.PeakSecond)
				if ph.PeakChart > 0 {
					c = append(c, ph.PeakChart)
				}
			}
		}
	}
	return stats.SpreadOf(m), stats.SpreadOf(p), stats.SpreadOf(c)
}
