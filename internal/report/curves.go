package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/result"
)

// curveChart is the latency-throughput curve of the --find-max records that share one set of
// SLOs: p50, p99 and p99.9 (ms, log axis) against the achieved rate of every step, a line per
// run and percentile, the SLO's limit as a line, each run's answer (the knee) marked.
type curveChart struct {
	Title string      `json:"title"`
	SLO   float64     `json:"slo"` // the tightest latency limit, ms; 0 without one
	Lines []curveLine `json:"lines"`
	Knees []curveKnee `json:"knees"`
}

type curveLine struct {
	Label  string       `json:"label"`
	Color  int          `json:"color"`
	Dash   int          `json:"dash"` // 0 p99 (solid), 1 p50, 2 p99.9
	Points [][2]float64 `json:"points"`
}

// curveKnee is a run's answer: its rate and the worst p99 of its passing steps there.
type curveKnee struct {
	Label string     `json:"label"`
	Color int        `json:"color"`
	Point [2]float64 `json:"point"`
}

// curves makes one curve chart per set of SLOs of the groups' --find-max records.
func curves(groups []Group, colors map[Key]int, labels map[*result.Record]string) []curveChart {
	var out []curveChart
	at := map[string]int{}
	for _, g := range groups {
		for _, r := range g.Records {
			sec := capacity.Section(r)
			if sec == nil || len(sec.Steps) == 0 {
				continue
			}
			title := strings.Join(sec.SLO, ", ")
			i, ok := at[title]
			if !ok {
				i, at[title] = len(out), len(out)
				out = append(out, curveChart{Title: "capacity at " + title, SLO: sloMillis(sec)})
			}
			out[i].add(sec, labels[r], colors[g.Key])
		}
	}
	return out
}

func (c *curveChart) add(sec *capacity.Record, label string, color int) {
	steps := slices.Clone(sec.Steps)
	slices.SortStableFunc(steps, func(a, b capacity.StepRecord) int { return cmp.Compare(a.Achieved, b.Achieved) })
	for dash, name := range []string{"p99", "p50", "p99.9"} {
		l := curveLine{Label: label + " " + name, Color: color, Dash: dash}
		for _, s := range steps {
			v := map[string]float64{"p50": s.P50, "p99": s.P99, "p99.9": s.P999}[name]
			l.Points = append(l.Points, [2]float64{sig(s.Achieved), sig(v / 1000)})
		}
		c.Lines = append(c.Lines, l)
	}
	if sec.MaxSustainableRate == nil {
		return
	}
	k := curveKnee{Label: label + ": " + sec.Bound, Color: color, Point: [2]float64{*sec.MaxSustainableRate, 0}}
	for _, s := range sec.Steps {
		if s.Verdict == capacity.Pass && s.TargetRate == *sec.MaxSustainableRate {
			k.Point[1] = max(k.Point[1], sig(s.P99/1000))
		}
	}
	c.Knees = append(c.Knees, k)
}

// sloMillis is the tightest latency limit of sec's SLOs, in ms; 0 without one.
func sloMillis(sec *capacity.Record) float64 {
	var ms float64
	for _, text := range sec.SLO {
		o, err := capacity.ParseSLO(text)
		if err != nil || o.Metric == "errors" {
			continue
		}
		if v := float64(o.Limit.Microseconds()) / 1000; ms == 0 || v < ms {
			ms = v
		}
	}
	return ms
}
