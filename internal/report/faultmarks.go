package report

import (
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/result"
)

// faultMarks are a run's faults on its over-time chart: a vertical line from 0 to the chart's
// highest value where each took effect (its faults section), labelled with the fault and its
// recovery; none without faults.
func faultMarks(r *result.Record, c seriesChart) []seriesLine {
	sec := fault.Section(r)
	if sec == nil {
		return nil
	}
	var top float64
	for _, l := range c.Lines {
		for _, p := range l.Points {
			top = max(top, p[1])
		}
	}
	var out []seriesLine
	for _, e := range sec.Faults {
		x := sig(e.At.Std().Seconds())
		out = append(out, seriesLine{Label: e.Fault + ": " + e.Recovery, Points: [][2]float64{{x, 0}, {x, top}}})
	}
	return out
}
