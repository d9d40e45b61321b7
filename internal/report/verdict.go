package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// ClaimMargin is how far from 1 a ratio must be to say one side beats the other: within it
// (1/1.1 to 1.1) the two are "about the same", which is also what a seed's ratio inside it
// claims, and the default band of a claim of no difference.
const ClaimMargin = 1.1

// SizeTolerance is the default band of a claim's size: our ratio matches the seed's when ours ÷
// the seed's lies within ×/÷ SizeTolerance (docs/METHOD.md says why 1.5).
const SizeTolerance = 1.5

// Claim outcomes.
const (
	ClaimHolds      = "holds"
	ClaimDirection  = "direction only" // the direction holds, the seed's size does not (or is not shown)
	ClaimFails      = "does not hold"
	ClaimUnclear    = "not shown"    // the repeats scatter across the line the claim needs
	ClaimUnmeasured = "not measured" // a side has no run that counts
)

// ClaimResult is a seed's claim set beside our records: the seed's ratio, ours (the medians'
// ratio, and its interval over every pair of the two sides' repeats), direction and size judged
// apart, and a sentence saying it all.
type ClaimResult struct {
	Claim     result.Claim
	Of, Over  Spread  // our figure over each side's runs that count
	Ours      float64 // Of.Median / Over.Median; 0 when not measured, +Inf over a side at 0
	Lo, Hi    float64 // the ratio's interval: Of.Min / Over.Max to Of.Max / Over.Min
	Seed      float64 // the seed's ratio of its own figures
	Tolerance float64 // the band of the size (or, for a claim of no difference, around 1)
	Outcome   string  // one of the Claim outcomes
	Direction string  // "holds", "does not hold" or "not shown": the direction alone
	Size      string  // the size in words: "holds (0.93 of the seed's, within ×/÷ 1.5)", ...; "" when not judged
	Why       string  // what decided the outcome, in words, and the runs left out
	OfLabel   string  // the side as it ran: the impl, its parameters and what it stands in for
	OverLabel string
	Sentence  string // the claim, both ratios and the verdict in one line
	SeedWords string // what the seed's ratio claims: "above", "below", "about the same as"
	Limited   string // what limited a side, where not its system under test (a service, the CPU)
	Left      []LeftOut
}

// EvaluateClaim computes c from recs, the records of c's seed (in any order): a side's runs are
// every record of the variants its run ids name, from any suite, that counts (Status: verified,
// or the seed flaw its variant expects reproduced with its signature).
func EvaluateClaim(c result.Claim, recs []*result.Record) ClaimResult {
	recs = Canonical(recs)
	of, over := sideRecords(c.Of, recs), sideRecords(c.Over, recs)
	res := ClaimResult{Claim: c, Seed: div(c.Of.Seed, c.Over.Seed), OfLabel: sideLabel(c.Of.Label, of), OverLabel: sideLabel(c.Over.Label, over)}
	res.SeedWords = claimDirection(res.Seed)
	res.Tolerance = band(c, res.SeedWords)
	var ofRecs, overRecs []*result.Record
	res.Of, ofRecs, res.Left = sideSpread(of, c.Figure, res.Left)
	res.Over, overRecs, res.Left = sideSpread(over, c.Figure, res.Left)
	if res.Of.N > 0 && res.Over.N > 0 {
		res.Ours = ratio(res.Of.Median, res.Over.Median)
		res.Lo, res.Hi = ratio(res.Of.Min, res.Over.Max), ratio(res.Of.Max, res.Over.Min)
	}
	res.judge(ofRecs, overRecs, len(of) == 0 || len(over) == 0)
	res.Sentence = res.sentence()
	return res
}

// band is the claim's tolerance: its own, else for a claim of no difference ClaimMargin (around
// 1), for a claimed difference SizeTolerance (around the seed's ratio).
func band(c result.Claim, seedWords string) float64 {
	switch {
	case c.Tolerance > 1:
		return c.Tolerance
	case seedWords == "about the same as":
		return ClaimMargin
	}
	return SizeTolerance
}

// repeatSuffix is the repeat at the end of a run id ("….r2"): without it, the id names the
// variant, whose runs are repeats of each other in any suite of the same file.
var repeatSuffix = regexp.MustCompile(`\.r[0-9]+$`)

// sideRecords returns the records of the variants the side's run ids name.
func sideRecords(s result.ClaimSide, recs []*result.Record) []*result.Record {
	var variants []string
	for _, id := range s.Runs {
		variants = append(variants, repeatSuffix.ReplaceAllString(id, ""))
	}
	var out []*result.Record
	for _, r := range recs {
		if id := runID(r); id != "" && slices.Contains(variants, repeatSuffix.ReplaceAllString(id, "")) {
			out = append(out, r)
		}
	}
	return out
}

// sideLabel is the side's label with the system its runs stand in for: "php-amp-loop:seed
// load=closed (standing in for Aerys NativeReactor)".
func sideLabel(label string, recs []*result.Record) string {
	for _, r := range recs {
		if r.StandsIn != "" {
			return label + " (standing in for " + r.StandsIn + ")"
		}
	}
	return label
}

// sideSpread is the spread of figure over the side's runs that count, those runs, and left with
// the runs left out added. A run that collapsed (it verified, and nothing succeeded) counts at 0.
func sideSpread(recs []*result.Record, figure string, left []LeftOut) (Spread, []*result.Record, []LeftOut) {
	var xs []float64
	var counted []*result.Record
	for _, r := range recs {
		if Status(r) == StatusFailed {
			left = append(left, LeftOut{Record: r, Why: Why(r)})
			continue
		}
		v, ok := workload.Figure(r, figure)
		switch {
		case !ok || math.IsNaN(v) || v < 0:
			left = append(left, LeftOut{Record: r, Why: "it has no " + figure + " figure"})
		case v == 0 && !collapsed(r):
			left = append(left, LeftOut{Record: r, Why: "its " + figure + " is 0"})
		default:
			xs, counted = append(xs, v), append(counted, r)
		}
	}
	return SpreadOf(xs), counted, left
}

// collapsed says whether a verified run measured nothing succeeding: every request failed (say,
// timed out) while the run's own check held, a true 0.
func collapsed(r *result.Record) bool {
	return r.Counts.Succeeded == 0 && r.Counts.Attempted > 0 && Verified(r)
}

// ratio is a ÷ b, +Inf for a > 0 over 0, and 0 when both are 0.
func ratio(a, b float64) float64 {
	switch {
	case b == 0 && a > 0:
		return math.Inf(1)
	case b == 0:
		return 0
	}
	return a / b
}

// claimDirection says what a ratio claims: "above" 1 (the first side beats the second),
// "below", or "about the same as" within ClaimMargin.
func claimDirection(r float64) string {
	switch {
	case r >= ClaimMargin:
		return "above"
	case r >= 0 && r <= 1/ClaimMargin:
		return "below"
	}
	return "about the same as"
}

// judge decides the outcome from the interval: direction first, then, where the direction
// holds, the size.
func (r *ClaimResult) judge(of, over []*result.Record, missing bool) {
	if r.Of.N == 0 || r.Over.N == 0 {
		r.Outcome, r.Direction = ClaimUnmeasured, ClaimUnmeasured
		side := r.OfLabel
		if r.Of.N > 0 {
			side = r.OverLabel
		}
		what := "counts"
		if missing {
			what = "is in these records"
		}
		r.Why = fmt.Sprintf("no run of %s that %s has the %s figure", side, what, r.Claim.Figure)
		return
	}
	if r.SeedWords == "about the same as" {
		r.judgeSame()
	} else {
		r.judgeDifference()
	}
	if r.Outcome != ClaimHolds {
		r.Limited = limitedText(r.Outcome == ClaimDirection, of, over)
	}
}

// judgeSame judges a claim of no difference: it holds when the whole interval lies within ×/÷
// the tolerance of 1 (ClaimMargin unless the claim states its own), fails when the whole
// interval lies beyond ClaimMargin, and is not shown when the repeats scatter between.
func (r *ClaimResult) judgeSame() {
	band := r.Tolerance
	switch {
	case r.Lo >= 1/band && r.Hi <= band:
		r.Outcome, r.Direction = ClaimHolds, ClaimHolds
		r.Why = fmt.Sprintf("every pair of repeats within ×/÷ %s of 1 (%s)", factorText(band), intervalText(r.Lo, r.Hi))
	case r.Lo > ClaimMargin || r.Hi < 1/ClaimMargin:
		r.Outcome, r.Direction = ClaimFails, ClaimFails
		r.Why = fmt.Sprintf("every pair of repeats differs by more than ×/÷ %s (%s)", factorText(ClaimMargin), intervalText(r.Lo, r.Hi))
	default:
		r.Outcome, r.Direction = ClaimUnclear, ClaimUnclear
		r.Why = fmt.Sprintf("the repeats scatter wider than ×/÷ %s of 1 (%s)", factorText(band), intervalText(r.Lo, r.Hi))
	}
}

// judgeDifference judges a claimed difference. Its direction holds when every pair of repeats
// goes the claimed way and the medians' ratio by ClaimMargin; it does not when no pair reaches
// ClaimMargin the claimed way; else it is not shown. Where it holds, the size is judged too.
func (r *ClaimResult) judgeDifference() {
	lo, hi, ours := r.Lo, r.Hi, r.Ours
	if r.SeedWords == "below" { // mirrored: judge the inverse as a claim above
		lo, hi, ours = inverse(r.Hi), inverse(r.Lo), inverse(r.Ours)
	}
	switch {
	case lo > 1 && ours >= ClaimMargin:
		r.Direction = ClaimHolds
	case hi < ClaimMargin:
		r.Outcome, r.Direction = ClaimFails, ClaimFails
		r.Why = fmt.Sprintf("ours is %s 1, the seed's %s 1 (%s)", claimDirection(r.Ours), r.SeedWords, intervalText(r.Lo, r.Hi))
		return
	default:
		r.Outcome, r.Direction = ClaimUnclear, ClaimUnclear
		r.Why = fmt.Sprintf("the repeats overlap: %s vs %s, the ratio %s", rangeText(r.Of), rangeText(r.Over), intervalText(r.Lo, r.Hi))
		return
	}
	r.judgeSize(lo/r.seedAbove(), hi/r.seedAbove(), ours/r.seedAbove())
	if r.Size != "" && !strings.HasPrefix(r.Size, ClaimHolds) && !strings.HasPrefix(r.Size, "stronger") {
		r.Outcome = ClaimDirection
	}
}

// seedAbove is the seed's ratio as a claim above 1 (its inverse for a claim below).
func (r *ClaimResult) seedAbove() float64 {
	if r.SeedWords == "below" {
		return inverse(r.Seed)
	}
	return r.Seed
}

// judgeSize judges the size of a claim whose direction holds, from ours ÷ the seed's as a claim
// above 1 (a claim below 1 inverted: its effect's size), lo and hi its interval and q the
// medians': within ×/÷ the tolerance it holds; wholly beyond it on the claim's side it is
// stronger than the seed's, which is evidence for the claim; wholly short of it, it does not
// hold; else it is not shown.
func (r *ClaimResult) judgeSize(lo, hi, q float64) {
	f := r.Tolerance
	of := fmt.Sprintf("%s of the seed's", shareText(q))
	if r.Ours == 0 || math.IsInf(r.Ours, 1) {
		of = "a side collapsed to 0"
	}
	switch {
	case lo >= 1/f && hi <= f:
		r.Outcome = ClaimHolds
		r.Size = fmt.Sprintf("holds (%s, within ×/÷ %s)", of, factorText(f))
	case lo > f:
		r.Outcome = ClaimHolds
		r.Size = fmt.Sprintf("stronger than the seed's (%s, beyond ×/÷ %s)", of, factorText(f))
	case hi < 1/f:
		r.Size = fmt.Sprintf("does not (%s, outside ×/÷ %s)", of, factorText(f))
	default:
		r.Size = fmt.Sprintf("not shown (the repeats give %s–%s of the seed's, across ×/÷ %s)", shareText(lo), shareText(hi), factorText(f))
	}
	r.Why = "direction holds; size " + r.Size
}

// limitedText says what limited a side's runs where it was not the side's system under test: a
// service, the load generator or the machine's CPU (package limit), and, for a size verdict,
// that the seed's size cannot be tested here; "" where each side's own system limited it, or
// nothing did.
func limitedText(size bool, sides ...[]*result.Record) string {
	var whos []string
	whom := map[string][]string{}
	cores := 0
	for _, recs := range sides {
		for _, r := range recs {
			who := notTheSUT(r)
			if who == "" {
				continue
			}
			if _, ok := whom[who]; !ok {
				whos = append(whos, who)
			}
			if impl := (Key{Impl: r.Impl, Variant: r.Variant, Mode: r.Mode}).ImplLabel(); !slices.Contains(whom[who], impl) {
				whom[who] = append(whom[who], impl)
			}
			cores = r.Environment.Cores
		}
	}
	if len(whos) == 0 {
		return ""
	}
	parts := make([]string, len(whos))
	for i, who := range whos {
		parts[i] = who + " limited " + strings.Join(whom[who], " and ")
	}
	text := strings.Join(parts, "; ")
	if size {
		text += fmt.Sprintf("; the seed's size cannot be tested on %d cores", cores)
	}
	return text
}

// inverse is 1/v, +Inf for 0 and 0 for +Inf.
func inverse(v float64) float64 {
	switch {
	case v == 0:
		return math.Inf(1)
	case math.IsInf(v, 1):
		return 0
	}
	return 1 / v
}

func rangeText(s Spread) string {
	return fmt.Sprintf("%s–%s", figureText(s.Min), figureText(s.Max))
}

// intervalText is a ratio's interval over the repeats: "1.02×–1.31×".
func intervalText(lo, hi float64) string {
	if lo == hi {
		return claimRatioText(lo) + " for every pair"
	}
	return claimRatioText(lo) + "–" + claimRatioText(hi)
}

// claimRatioText is RatioText with a collapse shown: "0×" for a side at 0 over the other, "∞×"
// the other way.
func claimRatioText(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞×"
	case v == 0:
		return "0×"
	}
	return RatioText(v)
}

// shareText is a share with two decimals: "0.50"; "∞" for an infinite one.
func shareText(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.2f", v)
}

// factorText is a tolerance factor: "1.5", "1.1".
func factorText(f float64) string { return fmt.Sprintf("%g", f) }

// figureText formats a figure: a rate or latency as a count, a small ratio with two decimals.
func figureText(v float64) string {
	if v < 100 {
		return fmt.Sprintf("%.2f", v)
	}
	return RateText(v, "")
}

// verdictText is what follows the ratios in a claim's sentence: where the size was judged,
// direction and size apart ("direction holds; size does not (0.50 of the seed's, outside ×/÷
// 1.5)"), else the outcome and why; then what limited a side, and the runs left out, named.
func (r ClaimResult) verdictText() string {
	text := r.Outcome + ": " + r.Why
	if r.Size != "" {
		text = r.Why
	}
	if r.Limited != "" {
		text += " (" + r.Limited + ")"
	}
	if len(r.Left) > 0 {
		text += "; left out: " + leftText(r.Left)
	}
	return text
}

// leftText names the runs left out and why, one clause each.
func leftText(left []LeftOut) string {
	parts := make([]string, len(left))
	for i, l := range left {
		parts[i] = l.Name() + " (" + l.Why + ")"
	}
	return strings.Join(parts, ", ")
}

// oursText is our ratio for a sentence or a cell: "–" when not measured.
func (r ClaimResult) oursText() string {
	if r.Outcome == ClaimUnmeasured {
		return "–"
	}
	return claimRatioText(r.Ours)
}

// sentence is the claim's line: "async is faster than sync: php-fanout route=/async ÷ php-fanout
// route=/sync (throughput) = 1.02× here (seed: 1.86×): does not hold: ours is about the same as
// 1, the seed's above 1 (0.97×–1.05×)".
func (r ClaimResult) sentence() string {
	return fmt.Sprintf("%s: %s ÷ %s (%s) = %s here (seed: %s): %s", r.Claim.Says, r.OfLabel, r.OverLabel,
		r.Claim.Figure, r.oursText(), RatioText(r.Seed), r.verdictText())
}

// cells are a claim's row in a verdict table.
func (r ClaimResult) cells() []string {
	ours := r.oursText()
	if r.Outcome != ClaimUnmeasured && r.Lo != r.Hi {
		ours += " (" + intervalText(r.Lo, r.Hi) + ")"
	}
	return []string{r.Claim.Says, r.OfLabel + " ÷ " + r.OverLabel, r.Claim.Figure,
		fmt.Sprintf("%s (%s ÷ %s)", RatioText(r.Seed), r.Claim.Of.SeedRow, r.Claim.Over.SeedRow), ours, r.verdictText()}
}
