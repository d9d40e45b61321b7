package report

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// TestPhasesBesideTheSeed: a bus run whose seed row gives per-phase figures gets a row per phase
// in every report, with its mean, best second and best 5-second window apart; a run without
// them gets none.
func TestPhasesBesideTheSeed(t *testing.T) {
	seed := &result.Seed{Label: "symfony/messenger", Throughput: 670, Phases: map[string]float64{"fill": 5900, "commands": 670, "events": 2450}}
	var recs []*result.Record
	for i, mean := range []float64{1000, 1100, 1200} {
		r := crafted("bus", "php-messenger", "sync", "", mean, 0, i+1)
		r.Seed, r.Latency = seed, nil
		r.Bus = &result.Bus{Phases: []result.Phase{
			{Name: "fill", Mean: 6000, PeakSecond: 7000, PeakChart: 6500},
			{Name: "commands", Mean: mean, PeakSecond: 2 * mean, PeakChart: 1.5 * mean},
			{Name: "events", Mean: mean, PeakSecond: mean, PeakChart: mean},
		}}
		recs = append(recs, r)
	}
	plain := crafted("bus", "go-bus", "async", "", 2000, 0, 4)
	plain.Latency, plain.Bus = nil, &result.Bus{Phases: []result.Phase{{Name: "commands", Mean: 2000}}}
	recs = append(recs, plain)
	for name, out := range renderAll(t, recs) {
		for _, want := range []string{"phase by phase", "5,900 msg/s", "2,450 msg/s", "1,100 msg/s", "2,200 msg/s", "1,650 msg/s", "1.50"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(out, "go-bus") && strings.Count(out, "2,000 msg/s") > 0 {
			t.Errorf("%s: go-bus has no seed row but got a phase row", name)
		}
	}
}
