package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/limit"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/textblock"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

// The page's parts, inlined so that the report is one file that fetches nothing.
var (
	//go:embed assets/chart.umd.min.js
	chartJS string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.html.tmpl
	pageSrc string

	pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
		"addf":    func(a, b float64) float64 { return a + b },
		"mib":     func(n uint64) string { return fmt.Sprintf("%.0f", float64(n)/(1<<20)) },
		"ms":      func(d result.Duration) time.Duration { return d.Std().Round(time.Millisecond) },
		"threads": limit.ThreadsText,
	}).Parse(pageSrc))
)

// ChartJSVersion is the version of Chart.js inlined in the HTML report (MIT License; see
// assets/NOTICE).
const ChartJSVersion = "4.6.1"

// HTMLOptions choose what the page's header says.
type HTMLOptions struct {
	Title     string    // "iobench report" when empty
	Generated time.Time // shown in the header; zero leaves it out (golden tests)
	Source    string    // where the records came from, e.g. the results directory
}

// HTML writes one self-contained page: for a seeds run, first the verdict board (a row per
// seed's claim, on one log axis), and the summary and the runs folded by seed; the summary,
// throughput bars with the spread across repeats, the async/sync ratios, the latency percentile
// spectrum, the throughput of each run over time, every warning, and each run's environment and
// reproduce command. Charts are drawn by the inlined Chart.js; the page loads nothing else (its
// Content-Security-Policy forbids it). Every string from the records is escaped by html/template
// (as text, or as JSON for the charts).
func HTML(w io.Writer, recs []*result.Record, opt HTMLOptions) error {
	p := buildPage(recs, opt)
	return pageTmpl.Execute(w, p)
}

type page struct {
	Title, Generated, Source string
	ChartJS, Script          template.JS
	ChartJSVersion           string
	Count                    int
	Board                    *verdictBoard // the seeds' claims at the top; nil without seeds
	BoardNote                string
	DiffersNote              string // heads each seed's differs lines
	Summary                  []summaryRow
	Folds                    []pageFold // the summary and the runs folded by seed; nil without seeds
	Side                     []sideRow  // the impls side by side with their own cost
	Seed                     []seedRow  // ours beside the seed's published figures
	SeedNote, SeedSources    string
	SeedAnchor               string        // the id of the table beside the seed
	Sections                 []section     // the workloads' own tables (fanout's overlap, the bus's phases)
	Seeds                    []seedSection // a section per seed, its verdict computed from the records
	Ratios                   []ratioRow
	Unpaired                 []string
	Env                      []kv // the environment, when every run shares it
	Runs                     []runView
	Warnings                 []warnView
	Data                     chartData
}

type kv struct{ K, V string }

type summaryRow struct {
	Key                     Key
	Color                   string
	Runs, Warnings          int
	Throughput, Spread, P99 string
	Verified                bool
	Flaw                    string // "seed flaw reproduced (...)" when that is the status
	Why                     string // why runs were left out, when some were (GroupWhy)
	FirstRun                string
}

// pageFold is a seed's share of the summary and of the runs (or that of no seed), each folded
// under its title.
type pageFold struct {
	ID, Title string // ID: the seed's verdict id, "" for the runs of no seed
	Groups    int
	Summary   []summaryRow
	Runs      []runView
}

type ratioRow struct{ Workload, Load, Sync, Async, Throughput, P99 string }

type runView struct {
	Anchor, Label, Color      string
	Verified, Interrupted     bool
	Flaw                      string
	Why                       string // why the run failed its own check, if it did
	Started, Duration, Target string
	Command                   string
	Params, Env, Counts       []kv
	Processes                 []result.Process
	Limit                     string // what limited the run; "" without process costs
	Phases                    []result.Phase
	Warnings                  []string
}

type warnView struct{ Anchor, Run, Text string }

// chartData is what assets/report.js draws; html/template writes it as JSON.
type chartData struct {
	Bars    []barChart      `json:"bars"`
	Ratios  []ratioBar      `json:"ratios"`
	Spectra []spectrumChart `json:"spectra"`
	Series  []seriesChart   `json:"series"`
	Curves  []curveChart    `json:"curves,omitempty"`
	Tables  []tableChart    `json:"tables,omitempty"` // the workloads' tables' own charts
	Board   *boardChart     `json:"board,omitempty"`
}

// boardChart is the verdict board's strips, drawn on one log axis from Min to Max.
type boardChart struct {
	Min    float64      `json:"min"`
	Max    float64      `json:"max"`
	Strips []boardStrip `json:"strips"`
}

type barChart struct {
	Title  string      `json:"title"`
	Unit   string      `json:"unit"`
	Labels []string    `json:"labels"`
	Median []float64   `json:"median"`
	Spread [][]float64 `json:"spread"`  // [min, max] per bar
	Repeat [][]float64 `json:"repeats"` // each repeat's value, for the tooltip
	Colors []int       `json:"colors"`
}

type ratioBar struct {
	Label      string  `json:"label"`
	Throughput float64 `json:"throughput"`
	P99        float64 `json:"p99"`
}

type spectrumChart struct {
	Title string     `json:"title"`
	Unit  string     `json:"unit"`
	Lines []specLine `json:"lines"`
}

type specLine struct {
	Label  string       `json:"label"`
	Color  int          `json:"color"`
	Repeat int          `json:"repeat"` // 0-based: later repeats are drawn lighter
	Dashed bool         `json:"dashed"`
	Points [][2]float64 `json:"points"` // [1/(1-p), latency in Unit]
}

type seriesChart struct {
	Anchor string       `json:"anchor"`
	Title  string       `json:"title"`
	Unit   string       `json:"unit"`
	Color  int          `json:"color"`
	Lines  []seriesLine `json:"lines"`
}

type seriesLine struct {
	Label  string       `json:"label"`
	Right  bool         `json:"right"` // on the right-hand axis (a count, not a rate)
	Points [][2]float64 `json:"points"`
}

func buildPage(recs []*result.Record, opt HTMLOptions) *page {
	p := &page{Title: opt.Title, Source: opt.Source, ChartJS: template.JS(chartJS), Script: template.JS(reportJS),
		ChartJSVersion: ChartJSVersion, BoardNote: boardNote, DiffersNote: differsNote}
	if p.Title == "" {
		p.Title = "iobench report"
	}
	if !opt.Generated.IsZero() {
		p.Generated = opt.Generated.Format("2006-01-02 15:04:05 MST")
	}
	groups := Aggregate(recs)
	colors := map[Key]int{}
	for i, g := range groups {
		colors[g.Key] = i
		p.Count += len(g.Records)
	}
	labels := map[*result.Record]string{}
	anchors := map[*result.Record]string{}
	for _, g := range groups {
		for i, r := range g.Records {
			labels[r] = fmt.Sprintf("%s #%d", g.Key, i+1)
			anchors[r] = fmt.Sprintf("run-%d", len(anchors)+1)
		}
	}
	p.Summary = summaryRows(groups, colors, anchors)
	p.Folds = pageFolds(recs, colors, anchors)
	fold := map[string]*pageFold{} // by the seed's id, for the runs below
	for i := range p.Folds {
		fold[p.Folds[i].ID] = &p.Folds[i]
	}
	p.Side = sideRows(groups, colors)
	free := unclaimed(groups)
	p.Seed, p.SeedNote, p.SeedSources, p.SeedAnchor = seedRows(free), seedNote, seedSources(free), "seed"
	p.Sections = sections(groups)
	p.Seeds = seedSections(recs)
	if p.Board = newBoard(p.Seeds); p.Board != nil {
		p.Data.Board = p.Board.chart()
	}
	ratios := Ratios(groups)
	for _, r := range ratios {
		p.Ratios = append(p.Ratios, ratioRow{Workload: r.Workload, Load: dash(r.LoadModel), Sync: r.Sync.Impl,
			Async: r.Async.AsyncLabel(), Throughput: RatioText(r.Throughput), P99: RatioText(r.P99)})
		p.Data.Ratios = append(p.Data.Ratios, ratioBar{Label: strings.TrimSpace(r.Workload+" "+r.LoadModel) + ": " +
			r.Async.AsyncLabel() + " async ÷ " + r.Sync.Impl + " sync", Throughput: sig(r.Throughput), P99: sig(r.P99)})
	}
	p.Unpaired = Unpaired(groups, ratios)
	p.Data.Bars = bars(groups, colors)
	p.Data.Spectra = spectra(groups, colors, labels)
	p.Data.Curves = curves(groups, colors, labels)
	p.Data.Tables = tableCharts(p.Sections)
	for _, s := range p.Seeds {
		p.Data.Tables = append(p.Data.Tables, tableCharts(s.Tables)...)
	}
	p.Env = commonEnv(groups)
	for _, g := range groups {
		for _, r := range g.Records {
			v := runPage(r, labels[r], anchors[r], color(colors[g.Key]), p.Env == nil)
			p.Runs = append(p.Runs, v)
			if f := fold[verdictID(r)]; f != nil {
				f.Runs = append(f.Runs, v)
			}
			if c := series(r, labels[r], anchors[r], colors[g.Key]); c.drawable() {
				p.Data.Series = append(p.Data.Series, c)
			}
			for _, w := range r.Warnings {
				p.Warnings = append(p.Warnings, warnView{Anchor: anchors[r], Run: labels[r], Text: w})
			}
		}
	}
	return p
}

// summaryRows are the summary table's rows: a row per group, its swatch's colour and its first
// run's anchor from the page's.
func summaryRows(groups []Group, colors map[Key]int, anchors map[*result.Record]string) []summaryRow {
	var out []summaryRow
	for _, g := range groups {
		out = append(out, summaryRow{Key: g.Key, Color: color(colors[g.Key]), Runs: len(g.Records),
			Warnings: g.Warnings, Throughput: g.RateText(), Spread: SpreadText(g.Throughput),
			P99: LatencyText(g.P99), Verified: g.Verified, Flaw: flawText(g.Status, g.Expect), Why: GroupWhy(g), FirstRun: anchors[g.Records[0]]})
	}
	return out
}

// pageFolds are the summary's rows folded by seed (foldBySeed), each seed's groups apart; nil
// without seeds. buildPage adds each fold's runs.
func pageFolds(recs []*result.Record, colors map[Key]int, anchors map[*result.Record]string) []pageFold {
	var out []pageFold
	for _, f := range foldBySeed(recs) {
		groups := Aggregate(f.Records)
		out = append(out, pageFold{ID: f.ID, Title: f.Title, Groups: len(groups), Summary: summaryRows(groups, colors, anchors)})
	}
	return out
}

// chart is the board's strips for assets/report.js.
func (b *verdictBoard) chart() *boardChart {
	c := &boardChart{Min: b.Axis.Min, Max: b.Axis.Max}
	for _, s := range b.Seeds {
		for _, r := range s.Rows {
			c.Strips = append(c.Strips, r.Strip)
		}
	}
	return c
}

// palette matches assets/report.js, so the table's swatches match the charts.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

func color(i int) string { return palette[i%len(palette)] }

// bars makes one throughput chart per workload (units differ between workloads).
func bars(groups []Group, colors map[Key]int) []barChart {
	var out []barChart
	for _, g := range groups {
		if len(out) == 0 || out[len(out)-1].Title != g.Key.Workload {
			out = append(out, barChart{Title: g.Key.Workload, Unit: g.Unit})
		}
		b := &out[len(out)-1]
		var reps []float64
		for _, r := range g.Records {
			reps = append(reps, sig(r.Throughput.Mean))
		}
		b.Labels = append(b.Labels, strings.TrimSpace(strings.TrimPrefix(g.Key.String(), g.Key.Workload)))
		b.Median = append(b.Median, sig(g.Throughput.Median))
		b.Spread = append(b.Spread, []float64{sig(g.Throughput.Min), sig(g.Throughput.Max)})
		b.Repeat = append(b.Repeat, reps)
		b.Colors = append(b.Colors, colors[g.Key])
	}
	return out
}

// spectra makes one latency spectrum per workload and load model: a line per run, and for an
// open loop its uncorrected latency dashed beside it.
func spectra(groups []Group, colors map[Key]int, labels map[*result.Record]string) []spectrumChart {
	var out []spectrumChart
	idx := map[string]int{}
	for _, g := range groups {
		title := strings.TrimSpace(g.Key.Workload + " " + g.Key.LoadModel)
		for j, r := range g.Records {
			if r.Latency == nil || r.Latency.Count == 0 {
				continue
			}
			i, ok := idx[title]
			if !ok {
				i = len(out)
				idx[title] = i
				out = append(out, spectrumChart{Title: title})
			}
			c := &out[i]
			c.Lines = append(c.Lines, specLine{Label: labels[r], Color: colors[g.Key], Repeat: j, Points: spectrum(r.Latency)})
			if r.LoadModel == "open" && r.Uncorrected != nil && r.Uncorrected.Count > 0 {
				c.Lines = append(c.Lines, specLine{Label: labels[r] + " (uncorrected)", Color: colors[g.Key], Repeat: j,
					Dashed: true, Points: spectrum(r.Uncorrected)})
			}
		}
	}
	for i := range out {
		scaleLatency(&out[i])
	}
	return out
}

// spectrum returns [1/(1-p), µs] points: the full HDR spectrum when the record holds the
// histogram, else its listed percentiles. The maximum sits at 1/(1-p) = count (one in count).
func spectrum(l *result.Latency) [][2]float64 {
	var pts [][2]float64
	add := func(p, v float64) {
		x := 1 / (1 - p/100)
		if p >= 100 {
			x = math.Max(float64(l.Count), 1)
		}
		if n := len(pts); n > 0 && x <= pts[n-1][0] {
			pts[n-1][1] = math.Max(pts[n-1][1], v)
			return
		}
		pts = append(pts, [2]float64{sig(x), v})
	}
	if h, err := stats.Decode(l); err == nil && l.Histogram != "" && h.Count() > 0 {
		for _, sp := range h.Spectrum(5) {
			add(sp.Percentile, sp.Value)
		}
		return pts
	}
	add(0, l.Min)
	for _, q := range l.Percentiles {
		add(q.P, q.Value)
	}
	return pts
}

// scaleLatency converts a chart's microseconds to the unit its largest value reads best in.
func scaleLatency(c *spectrumChart) {
	peak := 0.0
	for _, l := range c.Lines {
		for _, pt := range l.Points {
			peak = math.Max(peak, pt[1])
		}
	}
	div := 1.0
	switch c.Unit = "µs"; {
	case peak >= 2e6:
		c.Unit, div = "s", 1e6
	case peak >= 2e3:
		c.Unit, div = "ms", 1e3
	}
	for _, l := range c.Lines {
		for j := range l.Points {
			l.Points[j][1] = sig(l.Points[j][1] / div)
		}
	}
}

// series is a run's throughput second by second: completed operations per second, or the
// values its workload names (workload.Workload.Series: for the bus, the seed's three rates and
// the queue depth).
func series(r *result.Record, label, anchor string, col int) seriesChart {
	c := seriesChart{Anchor: anchor, Title: label, Unit: r.Throughput.Unit, Color: col}
	if w, ok := workload.Lookup(r.Workload); ok && len(w.Series) > 0 {
		for _, name := range w.Series {
			l := seriesLine{Label: name + "/s", Right: strings.HasSuffix(name, "depth")}
			if l.Right {
				l.Label = name + " (right axis)"
			}
			for _, pt := range r.Series {
				if v, ok := pt.Values[name]; ok {
					l.Points = append(l.Points, [2]float64{float64(pt.Second), sig(v)})
				}
			}
			if len(l.Points) > 0 {
				c.Lines = append(c.Lines, l)
			}
		}
		c.Unit = w.SeriesUnit
		return c
	}
	done := seriesLine{Label: "completed " + r.Throughput.Unit}
	errs := seriesLine{Label: "errors/s"}
	var anyErr bool
	for _, pt := range r.Series {
		span := pt.Span
		if span <= 0 {
			span = 1
		}
		x := float64(pt.Second)
		done.Points = append(done.Points, [2]float64{x, sig(float64(pt.Completed) / span)})
		errs.Points = append(errs.Points, [2]float64{x, sig(float64(pt.Errors) / span)})
		anyErr = anyErr || pt.Errors > 0
	}
	c.Lines = []seriesLine{done}
	if anyErr {
		c.Lines = append(c.Lines, errs)
	}
	c.Lines = append(c.Lines, faultMarks(r, c)...)
	return c
}

// drawable says whether the chart has a point to draw: a record keeps no series when it was
// saved without one (the seeds' test records are).
func (c seriesChart) drawable() bool {
	for _, l := range c.Lines {
		if len(l.Points) > 0 {
			return true
		}
	}
	return false
}

// commonEnv returns the machine when every run shares it (the usual case), else nil and each
// run shows its own.
func commonEnv(groups []Group) []kv {
	var first []kv
	for _, g := range groups {
		for _, r := range g.Records {
			e := machineRows(r.Environment)
			if first == nil {
				first = e
			} else if fmt.Sprint(e) != fmt.Sprint(first) {
				return nil
			}
		}
	}
	return first
}

func machineRows(e result.Environment) []kv {
	return []kv{
		{"host", e.Hostname}, {"OS", e.OS + "/" + e.Arch + " " + e.Kernel}, {"CPU", fmt.Sprintf("%s, %d cores", e.CPUModel, e.Cores)},
		{"memory", units.Bytes(float64(e.MemoryBytes))}, {"Go", e.GoVersion}, {"iobench", e.Version + " (" + e.GitCommit + ")"},
	}
}

// envRows are a run's machine (unless every run shares it) and the versions of its services and
// runtimes.
func envRows(e result.Environment, withMachine bool) []kv {
	var rows []kv
	if withMachine {
		rows = machineRows(e)
	}
	for _, k := range sortedKeys(e.Versions) {
		rows = append(rows, kv{k, e.Versions[k]})
	}
	return rows
}

func runPage(r *result.Record, label, anchor, col string, withEnv bool) runView {
	v := runView{Anchor: anchor, Label: label, Color: col, Verified: Status(r) == StatusVerified, Flaw: flawText(Status(r), r.Expect), Why: Why(r), Interrupted: r.Interrupted,
		Started: r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"), Duration: r.Duration.Std().Round(time.Millisecond).String(),
		Target: r.Target, Command: ShellQuote(r.Command), Processes: r.Processes, Warnings: r.Warnings}
	if len(r.Processes) > 0 {
		v.Limit = limit.OfRecord(r).String()
	}
	if w, ok := workload.Lookup(r.Workload); ok && w.Phases != nil {
		v.Phases = w.Phases(r)
	}
	for _, k := range sortedKeys(r.Parameters) {
		if s := fmt.Sprint(r.Parameters[k]); s != "" {
			v.Params = append(v.Params, kv{k, s})
		}
	}
	v.Env = envRows(r.Environment, withEnv)
	c := r.Counts
	v.Counts = []kv{{"attempted", units.Count(c.Attempted)}, {"succeeded", units.Count(c.Succeeded)}, {"failed", units.Count(c.Failed)}}
	for _, k := range sortedKeys(c.Errors) {
		v.Counts = append(v.Counts, kv{"errors: " + k, units.Count(c.Errors[k])})
	}
	for _, x := range []struct {
		k string
		n int64
	}{{"late starts", c.Late}, {"lost", c.Lost}, {"duplicated", c.Duplicated}, {"redelivered", c.Redelivered}} {
		if x.n > 0 {
			v.Counts = append(v.Counts, kv{x.k, units.Count(x.n)})
		}
	}
	v.Counts = append(v.Counts, kv{"throughput", RateText(r.Throughput.Mean, r.Throughput.Unit) + ", peak second " + RateText(r.Throughput.PeakSecond, "")})
	if l := r.Latency; l != nil && l.Count > 0 {
		v.Counts = append(v.Counts, kv{"latency", fmt.Sprintf("p50 %s, p99 %s, p99.9 %s, max %s",
			units.Micros(l.At(50)), units.Micros(l.At(99)), units.Micros(l.At(99.9)), units.Micros(l.Max))})
	}
	if line := textblock.TLSLine(r); line != "" {
		v.Counts = append(v.Counts, kv{"TLS", line})
	}
	return v
}

// ShellQuote joins a command line so that a shell reads it back as the same arguments.
func ShellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sig rounds to 4 significant digits: the charts need no more, and the page stays small.
func sig(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return f
}
