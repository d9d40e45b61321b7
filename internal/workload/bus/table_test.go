package bus

import (
	"slices"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/workload"
)

// TestPhasesTable: a bus group whose seed row gives per-phase figures gets a row per phase, with
// its mean, best second and best 5-second window apart (medians over the repeats), and no seed
// figure beside the fill (another publisher's); a phase whose runs were all shorter than the
// chart's window shows none for it, not 0; a group without seed figures gets no rows.
func TestPhasesTable(t *testing.T) {
	seed := &result.Seed{Label: "symfony/messenger", Phases: map[string]float64{"fill": 5900, "commands": 670}}
	var recs []*result.Record
	for _, mean := range []float64{1000, 1100, 1200} {
		r := &result.Record{Workload: Name}
		r.SetSection(Name, &Record{Phases: []result.Phase{
			{Name: "fill", Mean: 6000, PeakSecond: 7000, PeakChart: 6500},
			{Name: "commands", Mean: mean, PeakSecond: 2 * mean, PeakChart: 1.5 * mean},
			{Name: "events", Mean: mean, PeakSecond: mean, PeakChart: mean},
			{Name: "short", Mean: mean, PeakSecond: mean},
		}})
		recs = append(recs, r)
	}
	plain := &result.Record{Workload: Name}
	plain.SetSection(Name, &Record{Phases: []result.Phase{{Name: "commands", Mean: 2000}}})
	groups := []workload.TableGroup{
		{Workload: Name, Label: "php-messenger", Records: recs, Seed: seed},
		{Workload: Name, Label: "go-bus", Records: []*result.Record{plain}},
	}
	got := phasesTable(groups).Rows
	want := [][]string{
		{"php-messenger", "symfony/messenger", "fill", "–", "6,000 msg/s", "7,000 msg/s", "6,500 msg/s", "1.08"},
		{"php-messenger", "symfony/messenger", "commands", "670 msg/s", "1,100 msg/s", "2,200 msg/s", "1,650 msg/s", "1.50"},
		{"php-messenger", "symfony/messenger", "events", "–", "1,100 msg/s", "1,100 msg/s", "1,100 msg/s", "1.00"},
		{"php-messenger", "symfony/messenger", "short", "–", "1,100 msg/s", "1,100 msg/s", "–", "–"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	if _, _, c := phaseSpreads(recs, "commands"); c != (stats.Spread{N: 3, Median: 1650, Min: 1500, Max: 1800}) {
		t.Errorf("best 5 s spread %+v", c)
	}
}
