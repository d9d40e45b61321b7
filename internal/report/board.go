package report

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/iobench/iobench/internal/result"
)

// verdictBoard is what a seeds run's report opens with: per seed, a row per claim, the seed's
// ratio and ours on one log axis shared by every row, with our repeats' interval and the
// verdict beside them.
type verdictBoard struct {
	Axis  boardAxis
	Seeds []boardSeed
}

// boardSeed is one seed's rows on the board.
type boardSeed struct {
	Title, Anchor, Summary string
	Rows                   []boardRow
}

// boardRow is one claim on the board: what it says, the two sides as they ran (stand-ins named),
// both ratios as text and on the axis, and the verdict.
type boardRow struct {
	Says, Ratio, Figure string
	Seed, Ours          string // "3.85×"; "0.13× (0.07×–0.35×)", "–" when not measured
	Outcome, Class      string // the verdict word and its colour's class
	Details             string // the verdict after its word (ClaimResult.verdictText)
	Strip               boardStrip
}

// boardAxis is the board's log axis: whole decades from Min to Max, wide enough for every seed's
// ratio, size band and our interval, and never beyond boardReach either way; a value past it
// (a side at 0 included) is drawn at the edge.
type boardAxis struct{ Min, Max float64 }

// boardReach is the farthest the axis goes from 1: a thousand times either way.
const boardReach = 1e3

// boardStrip is a claim's row on the axis, as assets/report.js draws it.
type boardStrip struct {
	ID      string     `json:"id"`   // the element it is drawn in
	Seed    *boardMark `json:"seed"` // nil where the seed gave no ratio
	Band    []float64  `json:"band"` // the band the size (or no difference) holds in; nil without one
	Ours    *boardMark `json:"ours"` // nil when not measured
	Lo      *boardMark `json:"lo"`   // our interval's ends; nil when not measured
	Hi      *boardMark `json:"hi"`
	Outcome string     `json:"outcome"`
}

// boardMark is a value placed on the axis: X within it, Off -1 or 1 where the value lies beyond
// the axis's edge (0 and +Inf included) and is drawn there, and the value as text.
type boardMark struct {
	X    float64 `json:"x"`
	Off  int     `json:"off"`
	Text string  `json:"text"`
}

// newBoard lays the seeds' claims out on one board; nil without seeds.
func newBoard(seeds []seedSection) *verdictBoard {
	if len(seeds) == 0 {
		return nil
	}
	var all []ClaimResult
	for _, s := range seeds {
		all = append(all, s.Claims...)
	}
	b := &verdictBoard{Axis: newBoardAxis(all)}
	for _, s := range seeds {
		bs := boardSeed{Title: s.Title, Anchor: s.Anchor, Summary: s.Summary}
		for i, c := range s.Claims {
			bs.Rows = append(bs.Rows, b.Axis.row(c, fmt.Sprintf("board-%s-%d", s.ID, i+1)))
		}
		b.Seeds = append(b.Seeds, bs)
	}
	return b
}

// MinText is the axis's left edge: "0.01×".
func (a boardAxis) MinText() string { return strconv.FormatFloat(a.Min, 'g', -1, 64) + "×" }

// MaxText is the axis's right edge: "100×".
func (a boardAxis) MaxText() string { return strconv.FormatFloat(a.Max, 'g', -1, 64) + "×" }

// newBoardAxis returns the decades that hold every finite value of the claims' figures, 0.1×
// to 10× at least.
func newBoardAxis(claims []ClaimResult) boardAxis {
	lo, hi := 0.1, 10.0
	for _, c := range claims {
		for _, v := range boardValues(c) {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	const eps = 1e-9 // 0.1 is a decade's edge, not just past it
	return boardAxis{
		Min: math.Max(math.Pow(10, math.Floor(math.Log10(lo)+eps)), 1/boardReach),
		Max: math.Min(math.Pow(10, math.Ceil(math.Log10(hi)-eps)), boardReach),
	}
}

// boardValues are what a claim's row draws: the seed's ratio and band, and ours with its
// interval when measured.
func boardValues(c ClaimResult) []float64 {
	out := append([]float64{c.Seed}, boardBand(c)...)
	if c.Outcome != ClaimUnmeasured {
		out = append(out, c.Ours, c.Lo, c.Hi)
	}
	return out
}

// boardBand is the band a claim's ratio is judged against: for a claim of no difference the
// band around 1 that judgeSame uses (the claim's own tolerance, else ClaimMargin), else the
// seed's ratio ×/÷ its tolerance; nil where the seed gave no ratio.
func boardBand(c ClaimResult) []float64 {
	switch {
	case c.Seed <= 0:
		return nil
	case c.SeedWords == "about the same as":
		return []float64{1 / c.Tolerance, c.Tolerance}
	}
	return []float64{c.Seed / c.Tolerance, c.Seed * c.Tolerance}
}

// row is claim c's row, its strip drawn in the element id.
func (a boardAxis) row(c ClaimResult, id string) boardRow {
	r := boardRow{Says: c.Claim.Says, Ratio: c.OfLabel + " ÷ " + c.OverLabel, Figure: c.Claim.Figure,
		Seed: boardRatioText(c.Seed), Ours: c.oursText(), Outcome: c.Outcome, Class: outcomeClass(c.Outcome),
		Details: verdictDetails(c), Strip: boardStrip{ID: id, Outcome: c.Outcome}}
	if c.Seed > 0 {
		r.Strip.Seed = a.mark(c.Seed)
		for _, v := range boardBand(c) {
			r.Strip.Band = append(r.Strip.Band, a.mark(v).X)
		}
	}
	if c.Outcome != ClaimUnmeasured {
		r.Strip.Ours, r.Strip.Lo, r.Strip.Hi = a.mark(c.Ours), a.mark(c.Lo), a.mark(c.Hi)
		if c.Lo != c.Hi {
			r.Ours += " (" + boardRatioText(c.Lo) + "–" + boardRatioText(c.Hi) + ")"
		}
	}
	return r
}

// mark places v on the axis, at its edge when beyond it.
func (a boardAxis) mark(v float64) *boardMark {
	m := &boardMark{X: v, Text: boardRatioText(v)}
	switch {
	case v < a.Min || math.IsNaN(v):
		m.X, m.Off = a.Min, -1
	case v > a.Max:
		m.X, m.Off = a.Max, 1
	}
	m.X = sig(m.X)
	return m
}

// boardRatioText is a ratio as the board shows it: claimRatioText, with two significant digits
// below 0.01 ("0.0042×") where two decimals would read 0.
func boardRatioText(v float64) string {
	if v > 0 && v < 0.01 {
		return strconv.FormatFloat(v, 'g', 2, 64) + "×"
	}
	return claimRatioText(v)
}

// outcomeClass is the CSS class of an outcome's colour.
func outcomeClass(outcome string) string {
	switch outcome {
	case ClaimHolds:
		return "holds"
	case ClaimDirection:
		return "direction"
	case ClaimFails:
		return "fails"
	}
	return "unclear"
}

// verdictDetails is the verdict's text without the outcome word it starts with, which the board
// shows beside it: "stronger than the seed's: …" after "holds".
func verdictDetails(c ClaimResult) string {
	text := c.verdictText()
	for _, sep := range []string{": ", ", "} {
		if rest, ok := strings.CutPrefix(text, c.Outcome+sep); ok {
			return rest
		}
	}
	return text
}

// boardNote says how to read the board, in both reports.
const boardNote = "Each of the seeds' claims is a ratio of two figures; each row sets the seed's ratio beside ours on one " +
	"log axis. The band is where the claim holds: the seed's ratio ×/÷ its tolerance (for a claim of no difference, " +
	"the band around 1). Ours is the medians' ratio, with its interval over every pair of repeats; a ratio past the " +
	"axis (a side at 0) is drawn at its edge with an arrow. The verdict is computed from these records; the seeds' " +
	"sections below say how."

// boardStripWidth is the characters of a strip in summary.md.
const boardStripWidth = 33

// boardLegend says what the characters of a text strip mean.
const boardLegend = "In the strips: `S` the seed's ratio, `-` its band, `O` ours, `=` our interval, `@` ours on the seed's, " +
	"`<` or `>` past the axis's edge, `:` 1× (no difference)."

// text draws the row's strip in characters, for summary.md: the axis as dots with 1× marked,
// the band, our interval, the seed's ratio and ours.
func (a boardAxis) text(s boardStrip) string {
	line := []rune(strings.Repeat("·", boardStripWidth))
	if i := a.cell(1); i >= 0 {
		line[i] = ':'
	}
	if len(s.Band) == 2 {
		a.fill(line, s.Band[0], s.Band[1], '-')
	}
	if s.Ours != nil {
		a.fill(line, s.Lo.X, s.Hi.X, '=')
		a.put(line, s.Lo, '=')
		a.put(line, s.Hi, '=')
	}
	if s.Seed != nil {
		line[a.cell(s.Seed.X)] = 'S'
	}
	if s.Ours != nil {
		a.put(line, s.Ours, 'O')
		if s.Seed != nil && s.Ours.Off == 0 && a.cell(s.Ours.X) == a.cell(s.Seed.X) {
			line[a.cell(s.Ours.X)] = '@'
		}
	}
	return string(line)
}

// put writes c at m's cell, or the arrow of the edge m lies past.
func (a boardAxis) put(line []rune, m *boardMark, c rune) {
	switch m.Off {
	case -1:
		c = '<'
	case 1:
		c = '>'
	}
	line[a.cell(m.X)] = c
}

// fill writes c over the cells from lo to hi.
func (a boardAxis) fill(line []rune, lo, hi float64, c rune) {
	for i := a.cell(lo); i <= a.cell(hi); i++ {
		line[i] = c
	}
}

// cell is v's character on a text strip; -1 off the axis.
func (a boardAxis) cell(v float64) int {
	if v < a.Min || v > a.Max {
		return -1
	}
	f := math.Log(v/a.Min) / math.Log(a.Max/a.Min)
	return int(math.Round(f * (boardStripWidth - 1)))
}

// markdownBoard writes the board: a table per seed, a row per claim.
func markdownBoard(b *strings.Builder, v *verdictBoard) {
	fmt.Fprintf(b, "## Verdicts\n\n%s %s\n", boardNote, boardLegend)
	for _, s := range v.Seeds {
		fmt.Fprintf(b, "\n### [%s](#%s)\n\n%s\n\n", md(s.Title), url.PathEscape(s.Anchor), md(s.Summary))
		fmt.Fprintf(b, "| the seed's claim | ratio (figure) | seed | ours | %s to %s, log | verdict |\n",
			v.Axis.MinText(), v.Axis.MaxText())
		b.WriteString("|---|---|--:|--:|---|---|\n")
		for _, r := range s.Rows {
			fmt.Fprintf(b, "| %s | %s (%s) | %s | %s | `%s` | **%s**: %s |\n", md(r.Says), md(r.Ratio), md(r.Figure),
				r.Seed, r.Ours, v.Axis.text(r.Strip), md(r.Outcome), md(r.Details))
		}
	}
	b.WriteString("\n")
}

// recordFold is a seed's share of the records (those carrying its verdict), or the records of no
// seed (ID ""), for the run tables folded by seed.
type recordFold struct {
	ID, Title string
	Records   []*result.Record
}

// foldBySeed splits recs by their verdict's id, in the seeds' order, the records of no seed
// last; nil when no record carries a verdict.
func foldBySeed(recs []*result.Record) []recordFold {
	var out []recordFold
	at := map[string]int{}
	var none []*result.Record
	for _, r := range Canonical(recs) {
		if verdictID(r) == "" {
			none = append(none, r)
			continue
		}
		i, ok := at[r.Verdict.ID]
		if !ok {
			i = len(out)
			at[r.Verdict.ID] = i
			out = append(out, recordFold{ID: r.Verdict.ID, Title: r.Verdict.Title})
		}
		out[i].Records = append(out[i].Records, r)
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortStableFunc(out, func(a, b recordFold) int { return strings.Compare(a.ID, b.ID) })
	if len(none) > 0 {
		out = append(out, recordFold{Title: "Runs of no seed", Records: none})
	}
	return out
}

// verdictID is the id of the seed whose verdict r carries, "" for none.
func verdictID(r *result.Record) string {
	if r.Verdict == nil {
		return ""
	}
	return r.Verdict.ID
}
