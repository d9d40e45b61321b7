package report

import (
	"fmt"

	"github.com/iobench/iobench/internal/result"
)

const phasesNote = "The seed read each figure off RabbitMQ's management chart, which samples every 5 s: what it " +
	"shows at its peak is the best 5-second window, not the phase's rate. Ours gives the three apart, medians " +
	"over the repeats: the phase's mean (its messages over its duration), the best full second and the best " +
	"5-second window, the one comparable with the seed's figure."

// phasesSection sets a phased workload's runs (the bus: fill, commands, events) beside the
// seed's figure for each phase, where the scenario's seed row gives them.
func phasesSection(groups []Group) section {
	s := section{ID: "phases", Title: "Beside the seed, phase by phase (bus)", Note: phasesNote,
		Head: []string{"impl", "seed's row", "phase", "seed", "ours: mean", "best 1 s", "best 5 s", "5 s ÷ mean"},
		Num:  []bool{false, false, false, true, true, true, true, true}}
	for _, g := range groups {
		if g.Seed == nil || len(g.Seed.Phases) == 0 {
			continue
		}
		for _, name := range phaseNames(g.Records) {
			mean, peak, chart := phaseSpreads(g.Records, name)
			seed := "–"
			if v, ok := g.Seed.Phases[name]; ok {
				seed = RateText(v, "msg/s")
			}
			s.Rows = append(s.Rows, []string{g.Key.ImplLabel(), g.Seed.Label, name, seed, RateText(mean.Median, "msg/s"),
				RateText(peak.Median, "msg/s"), RateText(chart.Median, "msg/s"), fmt.Sprintf("%.2f", div(chart.Median, mean.Median))})
		}
	}
	return s
}

// phaseNames are the phases of the first record that has them, in its order.
func phaseNames(recs []*result.Record) []string {
	for _, r := range recs {
		if r.Bus != nil && len(r.Bus.Phases) > 0 {
			var out []string
			for _, p := range r.Bus.Phases {
				out = append(out, p.Name)
			}
			return out
		}
	}
	return nil
}

// phaseSpreads returns the spreads of one phase's mean, best second and best chart window.
func phaseSpreads(recs []*result.Record, name string) (mean, peak, chart Spread) {
	var m, p, c []float64
	for _, r := range recs {
		if r.Bus == nil {
			continue
		}
		for _, ph := range r.Bus.Phases {
			if ph.Name == name {
				m, p, c = append(m, ph.Mean), append(p, ph.PeakSecond), append(c, ph.PeakChart)
			}
		}
	}
	return SpreadOf(m), SpreadOf(p), SpreadOf(c)
}
