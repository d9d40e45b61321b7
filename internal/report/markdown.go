package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// Markdown writes summary.md: for a seeds run, first the verdict board (a row per seed's
// claim) and the table below folded by seed; one table row per group of repeats (workload, impl,
// mode, load model) with the throughput median and spread, the p99 median, whether every run verified (or
// reproduced the seed flaw its variant expects) and how many warnings there were; then the impls
// side by side with their own cost; then the sections (what limited each group's runs, the
// workloads' own tables); then the async/sync ratios per workload.
func Markdown(w io.Writer, recs []*result.Record) error {
	groups := Aggregate(recs)
	ratios := Ratios(groups)
	seeds := seedSections(recs)
	runs := 0
	for _, g := range groups {
		runs += len(g.Records)
	}
	var b strings.Builder
	b.WriteString("# iobench summary\n\n")
	if board := newBoard(seeds); board != nil {
		markdownBoard(&b, board)
		b.WriteString("## Runs\n\n")
	}
	fmt.Fprintf(&b, "%s in %s. Throughput is the median over the repeats, with the spread (min–max); "+
		"p99 is the median of the repeats' p99 (open loop: from each request's intended start).\n",
		plural(runs, "run"), plural(len(groups), "group"))
	folds := foldBySeed(recs)
	if folds == nil {
		markdownSummary(&b, groups)
	}
	for _, f := range folds {
		fmt.Fprintf(&b, "\n### %s\n", md(f.Title))
		markdownSummary(&b, Aggregate(f.Records))
	}
	markdownSideBySide(&b, groups)
	markdownSeed(&b, unclaimed(groups))
	markdownSections(&b, groups)
	markdownSeeds(&b, seeds)
	b.WriteString("\n## Sync vs async\n\n")
	if len(ratios) > 0 {
		b.WriteString("| workload | load | sync | async | throughput async ÷ sync | p99 async ÷ sync |\n")
		b.WriteString("|---|---|---|---|--:|--:|\n")
		for _, r := range ratios {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", md(r.Workload), md(dash(r.LoadModel)),
				md(r.Sync.ImplLabel()), md(r.Async.AsyncLabel()), RatioText(r.Throughput), RatioText(r.P99))
		}
		b.WriteString("\n")
	}
	for _, wl := range Unpaired(groups, ratios) {
		fmt.Fprintf(&b, "- %s: no sync and async runs of the same load model to compare.\n", md(wl))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownSummary writes the summary table: a row per group of repeats.
func markdownSummary(b *strings.Builder, groups []Group) {
	b.WriteString("\n| workload | impl | mode | load | runs | throughput | spread (min–max) | p99 | verified | warnings |\n")
	b.WriteString("|---|---|---|---|--:|--:|--:|--:|:-:|--:|\n")
	for _, g := range groups {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %d |\n",
			md(g.Key.Workload), md(g.Key.ImplLabel()), md(dash(g.Key.Mode)), md(dash(g.Key.Load())), len(g.Records),
			md(g.RateText()), SpreadText(g.Throughput), LatencyText(g.P99),
			statusMD(g), g.Warnings)
	}
}

// SummaryText writes the terminal's summary table: one line per group of repeats (workload,
// impl, mode, load model) with the throughput median and spread, the p99 median and whether every
// run verified, then one line per async/sync ratio, then the impls side by side with their cost,
// then the sections (what limited each group's runs, the workloads' own tables).
func SummaryText(w io.Writer, recs []*result.Record) error {
	groups := Aggregate(recs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\timpl\tmode\tload\truns\tthroughput\tspread (min–max)\tp99\tverified\twarnings")
	for _, g := range groups {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d\n", g.Key.Workload, g.Key.ImplLabel(), dash(g.Key.Mode),
			dash(g.Key.Load()), len(g.Records), g.RateText(), SpreadText(g.Throughput),
			LatencyText(g.P99), statusText(g), g.Warnings)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range Ratios(groups) {
		load := ""
		if r.LoadModel != "" {
			load = " " + r.LoadModel
		}
		if _, err := fmt.Fprintf(w, "%s%s: %s %s is %s the throughput of sync %s (p99 %s)\n", r.Workload, load,
			r.Async.Mode, r.Async.ImplLabel(), RatioText(r.Throughput), r.Sync.ImplLabel(), RatioText(r.P99)); err != nil {
			return err
		}
	}
	if err := textSideBySide(w, groups); err != nil {
		return err
	}
	if err := textSeed(w, unclaimed(groups)); err != nil {
		return err
	}
	if err := textSections(w, groups); err != nil {
		return err
	}
	return textSeeds(w, seedSections(recs))
}

// RateText formats a rate with its unit: "82,327 req/s", "12.50 req/s" below 100.
func RateText(v float64, unit string) string { return units.RateText(v, unit) }

// SpreadText formats a throughput spread: "80,000–84,000 (±2.4%)"; "–" for a single run.
func SpreadText(s Spread) string {
	if s.N < 2 {
		return "– (1 run)"
	}
	return fmt.Sprintf("%s–%s (±%.1f%%)", RateText(s.Min, ""), RateText(s.Max, ""), 50*s.Width())
}

// LatencyText formats the median of a spread of durations given in microseconds (a latency, or
// CPU per 1,000 operations), "–" without one.
func LatencyText(s Spread) string { return s.MicrosText() }

// RatioText formats a ratio as "2.31×", "–" for none.
func RatioText(r float64) string { return units.RatioText(r) }

// statusMD is a group's status for a Markdown cell: a failure in bold, with why.
func statusMD(g Group) string {
	if g.Status == StatusFailed {
		return "**not verified**: " + md(GroupWhy(g))
	}
	return md(StatusText(g.Status, g.Expect))
}

// statusText is a group's status for the terminal: a failure with why.
func statusText(g Group) string {
	if g.Status == StatusFailed {
		return "not verified: " + GroupWhy(g)
	}
	return StatusText(g.Status, g.Expect)
}

// GroupWhy says why a group's runs were left out of its figures: the first one's reason, and
// how many of the repeats were left out ("the store's count: ... (2 of 2 runs)"); "" when none
// was.
func GroupWhy(g Group) string {
	if len(g.Left) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%d of %d runs left out)", g.Left[0].Why, len(g.Left), len(g.Records))
}

// markdownSideBySide writes the impls of each workload side by side with their own cost.
func markdownSideBySide(b *strings.Builder, groups []Group) {
	side := SideBySide(groups)
	if len(side) == 0 {
		return
	}
	b.WriteString("\n## Impls side by side\n\n" + sideBySideNote + "\n\n")
	b.WriteString("| workload | load | impl | mode | throughput | p99 | CPU per 1k ops | peak memory | verified |\n")
	b.WriteString("|---|---|---|---|--:|--:|--:|--:|:-:|\n")
	for _, g := range side {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", md(g.Key.Workload), md(dash(g.Key.Load())),
			md(g.Key.ImplLabel()), md(dash(g.Key.Mode)), md(g.RateText()), LatencyText(g.P99),
			LatencyText(g.CPUPer1k), MemoryText(g.PeakRSS), statusMD(g))
	}
}

// textSideBySide is markdownSideBySide for the terminal.
func textSideBySide(w io.Writer, groups []Group) error {
	side := SideBySide(groups)
	if len(side) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nImpls side by side (CPU: the SUT's own per 1,000 operations, median of the repeats; memory: its highest peak RSS):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tload\timpl\tmode\tthroughput\tp99\tCPU per 1k ops\tpeak memory\tverified")
	for _, g := range side {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g.Key.Workload, dash(g.Key.Load()), g.Key.ImplLabel(),
			dash(g.Key.Mode), g.RateText(), LatencyText(g.P99), LatencyText(g.CPUPer1k),
			MemoryText(g.PeakRSS), statusText(g))
	}
	return tw.Flush()
}

func dash(s string) string { return units.OrNone(s) }

// md escapes a string from outside for a Markdown table cell: no line breaks, no pipes, and no
// characters that Markdown or inline HTML would interpret.
func md(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case '\\', '|', '*', '_', '`', '[', ']', '<', '>', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plural returns "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
