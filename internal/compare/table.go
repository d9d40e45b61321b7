package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/units"
)

// Write renders the table as aligned text, benchstat-like: per group and metric the base and
// new medians with their ranges, the change, and whether it is real.
func (t Table) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tmetric\tbase median (min–max)\tnew median (min–max)\tdelta\tverdict")
	last := ""
	limited := ""
	for _, r := range t.Rows {
		g := r.Group
		if g == last {
			g = ""
		}
		last = r.Group
		metric := r.Metric
		if r.Unit != "" && r.Unit != "µs" {
			metric += " (" + r.Unit + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", g, metric, spread(r.Base, r.Metric), spread(r.New, r.Metric),
			DeltaText(r), Verdict(r))
		if p := minP(r.Base.N, r.New.N); r.UTest && p >= t.Alpha && limited == "" {
			limited = fmt.Sprintf("with n=%d+%d repeats the smallest possible p is %.3f, so no change can reach α=%g: "+
				"use 4 or more repeats per side", r.Base.N, r.New.N, p, t.Alpha)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes []string
	if len(t.Rows) == 0 {
		notes = append(notes, "no group is on both sides: nothing to compare")
	}
	notes = append(notes, fmt.Sprintf("~ means no change beyond the spread of the repeats: Mann-Whitney U test at α=%g "+
		"with %d or more repeats per side; with fewer, a change is not judged (--allow-few judges it by whether the "+
		"min–max ranges overlap); runs of two setups are never judged", t.Alpha, MinRepeats))
	if limited != "" {
		notes = append(notes, limited)
	}
	if len(t.OnlyBase) > 0 {
		notes = append(notes, "only in base, not compared: "+strings.Join(t.OnlyBase, "; "))
	}
	if len(t.OnlyNew) > 0 {
		notes = append(notes, "only in new, not compared: "+strings.Join(t.OnlyNew, "; "))
	}
	if len(t.Left) > 0 {
		notes = append(notes, "left out, not verified: "+strings.Join(t.Left, "; "))
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// String returns the table as Write renders it.
func (t Table) String() string {
	var b strings.Builder
	_ = t.Write(&b)
	return b.String()
}

// DeltaText formats a row's change of the medians: "+12.3%", "-5.0%", "+∞" from zero.
func DeltaText(r Row) string {
	if math.IsInf(r.Ratio, 1) {
		return "+∞"
	}
	return fmt.Sprintf("%+.1f%%", 100*r.Delta())
}

// Verdict says whether a row's change is real and which way: "worse (p=0.008 n=5+5)",
// "~ (p=0.400 n=3+3)", "~ (too few repeats: n=2+2, ranges overlap)".
func Verdict(r Row) string {
	switch {
	case r.Unjudged != "":
		return r.Unjudged
	case !r.Significant || r.Ratio == 1:
		return "~ (" + Evidence(r) + ")"
	case r.Worse():
		return "worse (" + Evidence(r) + ")"
	}
	return "better (" + Evidence(r) + ")"
}

// Evidence says what the verdict rests on: "p=0.008 n=5+5" or "too few repeats: n=2+2, ranges
// overlap".
func Evidence(r Row) string {
	if r.UTest {
		return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.Base.N, r.New.N)
	}
	if r.Unjudged != "" {
		return r.Unjudged
	}
	overlap := "ranges overlap"
	if r.Significant {
		overlap = "ranges apart"
	}
	return fmt.Sprintf("judged anyway on few repeats (--allow-few): n=%d+%d, %s", r.Base.N, r.New.N, overlap)
}

func spread(s report.Spread, metric string) string {
	f := func(v float64) string {
		switch metric {
		case Throughput:
			return num(v)
		case Errors:
			return fmt.Sprintf("%.3f%%", v)
		}
		return units.Micros(v)
	}
	if s.N == 1 || s.Min == s.Max {
		return fmt.Sprintf("%s (n=%d)", f(s.Median), s.N)
	}
	return fmt.Sprintf("%s (%s–%s)", f(s.Median), f(s.Min), f(s.Max))
}

// minP is the smallest two-sided p the exact U test can give for samples of n1 and n2:
// 2 / C(n1+n2, n1).
func minP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// num formats a rate with about 3 significant digits below 1000 and thousands separators above.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 999.5:
		return units.Count(int64(math.Round(v)))
	case a >= 99.5:
		return fmt.Sprintf("%.0f", v)
	case a >= 9.995:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
