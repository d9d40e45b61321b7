package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

// seedNote says how to read the table beside the seed.
const seedNote = "Ours: the median of the repeats on this machine; the seed's: the figure it published for the same setup (its machine, its tool). The ratio is ours ÷ the seed's; the errors are each run's, by class, summed over the repeats."

// addErrors sums a record's errors by class into the group.
func (g *Group) addErrors(errs map[string]int64) {
	for k, n := range errs {
		if n == 0 {
			continue
		}
		if g.Errors == nil {
			g.Errors = map[string]int64{}
		}
		g.Errors[k] += n
	}
}

// flawedClasses are the error classes of a response that arrived but was wrong.
var flawedClasses = workload.FlawedClasses

// AnsweredRate returns r's responses per second with the flawed ones included, where
// Throughput.Mean counts successes only; 0 for a record without a measured duration.
func AnsweredRate(r *result.Record) float64 {
	v, _ := workload.Figure(r, "answered")
	return v
}

// oursText is a group's median beside the seed; where flawed responses were counted as errors,
// it adds the rate as wrk counts it (flawed responses included), the seed's own measure.
func oursText(g Group) string {
	ours := g.RateText()
	flawed := int64(0)
	for _, c := range flawedClasses {
		flawed += g.Errors[c]
	}
	if flawed == 0 || g.Answered.N == 0 {
		return ours
	}
	return fmt.Sprintf("%s (%s as wrk counts, flawed responses included)", ours, RateText(g.Answered.Median, g.Unit))
}

// SeedGroups returns the groups that carry the seed's figure for their setup.
func SeedGroups(groups []Group) []Group {
	var out []Group
	for _, g := range groups {
		if g.Seed != nil {
			out = append(out, g)
		}
	}
	return out
}

// seedRow is one line beside the seed, formatted.
type seedRow struct {
	Key                                      Key
	Label, Seed, Ours, Ratio                 string
	SeedLatency, OurLatency, SeedErr, OurErr string
}

func seedRows(groups []Group) []seedRow {
	var out []seedRow
	for _, g := range SeedGroups(groups) {
		s := g.Seed
		out = append(out, seedRow{Key: g.Key, Label: s.Label,
			Seed: RateText(s.Throughput, g.Unit), Ours: oursText(g),
			Ratio:       RatioText(div(g.Throughput.Median, s.Throughput)),
			SeedLatency: latencyPair(s.P50, s.P99), OurLatency: latencyPair(spreadMedian(g.P50), spreadMedian(g.P99)),
			SeedErr: dash(s.Errors), OurErr: dash(ErrorsText(g.Errors))})
	}
	return out
}

func spreadMedian(s Spread) float64 {
	if s.N == 0 {
		return 0
	}
	return s.Median
}

// latencyPair formats "p50 / p99" in microseconds, "–" for a missing one.
func latencyPair(p50, p99 float64) string {
	f := func(v float64) string {
		if v <= 0 {
			return "–"
		}
		return units.Micros(v)
	}
	return f(p50) + " / " + f(p99)
}

// ErrorsText formats errors by class as wrk does: "read 810, write 55", classes sorted.
func ErrorsText(errs map[string]int64) string {
	var parts []string
	for k, n := range errs {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", k, units.Count(n)))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// seedSources lists the distinct sources of the seed's figures.
func seedSources(groups []Group) string {
	var out []string
	for _, g := range SeedGroups(groups) {
		if src := g.Seed.Source; src != "" && !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	return dash(strings.Join(out, "; "))
}

// markdownSeed writes the table beside the seed, when any group has the seed's figure.
func markdownSeed(b *strings.Builder, groups []Group) {
	markdownSeedTable(b, seedRows(groups), seedSources(groups), "##")
}

// markdownSeedTable writes rows beside the seed under a heading of the given level.
func markdownSeedTable(b *strings.Builder, rows []seedRow, sources, level string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s Beside the seed\n\n%s Source: %s.\n\n", level, seedNote, md(sources))
	b.WriteString("| impl | load | seed's row | seed | ours | ours ÷ seed | seed p50 / p99 | our p50 / p99 | seed's errors | our errors |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", md(r.Key.ImplLabel()), md(dash(r.Key.Load())),
			md(r.Label), r.Seed, r.Ours, r.Ratio, r.SeedLatency, r.OurLatency, md(r.SeedErr), md(r.OurErr))
	}
}

// textSeed is markdownSeed for the terminal.
func textSeed(w io.Writer, groups []Group) error { return textSeedTable(w, seedRows(groups)) }

// textSeedTable writes rows beside the seed for the terminal.
func textSeedTable(w io.Writer, rows []seedRow) error {
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nBeside the seed (ours: median of the repeats here; the seed's: as it published them):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "impl\tload\tseed's row\tseed\tours\tours ÷ seed\tseed p50 / p99\tour p50 / p99\tseed's errors\tour errors")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Key.ImplLabel(), dash(r.Key.Load()), r.Label,
			r.Seed, r.Ours, r.Ratio, r.SeedLatency, r.OurLatency, r.SeedErr, r.OurErr)
	}
	return tw.Flush()
}
