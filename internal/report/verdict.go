package report

import (
	"fmt"
	"math"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// ClaimMargin is how far from 1 a ratio must be to say one side beats the other: within it
// (1/1.1 to 1.1) the two are "about the same", which is also what a seed's ratio inside it
// claims.
const ClaimMargin = 1.1

// Claim outcomes.
const (
	ClaimHolds      = "holds"
	ClaimFails      = "does not hold"
	ClaimUnclear    = "not shown"    // the right direction, but the repeats of the two sides overlap
	ClaimUnmeasured = "not measured" // a side has no trustworthy run
)

// ClaimResult is a seed's claim set beside our records: the seed's ratio, ours (medians over
// the repeats) and the outcome, with a sentence saying it all.
type ClaimResult struct {
	Claim     result.Claim
	Of, Over  Spread  // our figure over each side's runs
	Ours      float64 // Of.Median / Over.Median; 0 when not measured
	Seed      float64 // the seed's ratio of its own figures
	Outcome   string  // ClaimHolds, ClaimFails, ClaimUnclear or ClaimUnmeasured
	Why       string  // what decided the outcome, in words
	Sentence  string  // the claim, both ratios and the outcome in one line
	SeedWords string  // what the seed's ratio claims: "above", "below", "about the same as"
}

// EvaluateClaim computes c from recs (any records; those of the runs c's sides name count): a
// run counts when it verified, or reproduced the seed flaw its variant expects.
func EvaluateClaim(c result.Claim, recs []*result.Record) ClaimResult {
	byRun := map[string]*result.Record{}
	for _, r := range recs {
		if id, ok := r.Parameters["run_id"].(string); ok {
			byRun[id] = r
		}
	}
	res := ClaimResult{Claim: c, Of: sideSpread(c.Of, c.Figure, byRun), Over: sideSpread(c.Over, c.Figure, byRun),
		Seed: div(c.Of.Seed, c.Over.Seed)}
	res.SeedWords = claimDirection(res.Seed)
	if res.Of.N > 0 && res.Over.N > 0 {
		res.Ours = div(res.Of.Median, res.Over.Median)
	}
	res.Outcome, res.Why = res.decide()
	res.Sentence = res.sentence()
	return res
}

// sideSpread is the spread of figure over the side's runs that count.
func sideSpread(s result.ClaimSide, figure string, byRun map[string]*result.Record) Spread {
	var xs []float64
	for _, id := range s.Runs {
		r := byRun[id]
		if r == nil || Status(r) == StatusFailed {
			continue
		}
		if v, ok := workload.Figure(r, figure); ok && v > 0 && !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return SpreadOf(xs)
}

// claimDirection says what a ratio claims: "above" 1 (the first side beats the second),
// "below", or "about the same as" within ClaimMargin.
func claimDirection(r float64) string {
	switch {
	case r >= ClaimMargin:
		return "above"
	case r > 0 && r <= 1/ClaimMargin:
		return "below"
	}
	return "about the same as"
}

// decide compares our ratio with the direction the seed's claims. A claimed difference holds
// when ours goes the same way beyond ClaimMargin and every repeat of one side is beyond every
// repeat of the other; a claimed sameness holds when ours is within the margin.
func (r ClaimResult) decide() (string, string) {
	if r.Of.N == 0 || r.Over.N == 0 {
		missing := r.Claim.Of.Label
		if r.Of.N > 0 {
			missing = r.Claim.Over.Label
		}
		return ClaimUnmeasured, fmt.Sprintf("no run of %s that verified has the %s figure (skipped or failed)", missing, r.Claim.Figure)
	}
	ours := claimDirection(r.Ours)
	switch {
	case ours != r.SeedWords:
		return ClaimFails, fmt.Sprintf("ours is %s 1, the seed's %s 1", ours, r.SeedWords)
	case ours == "above" && r.Of.Min <= r.Over.Max, ours == "below" && r.Of.Max >= r.Over.Min:
		return ClaimUnclear, fmt.Sprintf("the medians agree with the seed but the repeats overlap (%s vs %s)",
			rangeText(r.Of), rangeText(r.Over))
	}
	return ClaimHolds, fmt.Sprintf("ours is %s 1, as the seed's", ours)
}

func rangeText(s Spread) string {
	return fmt.Sprintf("%s–%s", figureText(s.Min), figureText(s.Max))
}

// figureText formats a figure: a rate or latency as a count, a small ratio with two decimals.
func figureText(v float64) string {
	if v < 100 {
		return fmt.Sprintf("%.2f", v)
	}
	return RateText(v, "")
}

// sentence is the claim's line: "async is faster than sync: php-fanout route=/async ÷ php-fanout
// route=/sync (throughput) = 1.02× here (seed: 1.86×): does not hold (ours is about the same as
// 1, the seed's above 1)".
func (r ClaimResult) sentence() string {
	return fmt.Sprintf("%s: %s ÷ %s (%s) = %s here (seed: %s): %s (%s)", r.Claim.Says, r.Claim.Of.Label, r.Claim.Over.Label,
		r.Claim.Figure, RatioText(r.Ours), RatioText(r.Seed), r.Outcome, r.Why)
}

// claimCells are a claim's row in a verdict table.
func (r ClaimResult) cells() []string {
	return []string{r.Claim.Says, r.Claim.Of.Label + " ÷ " + r.Claim.Over.Label, r.Claim.Figure,
		fmt.Sprintf("%s (%s ÷ %s)", RatioText(r.Seed), r.Claim.Of.SeedRow, r.Claim.Over.SeedRow), RatioText(r.Ours), r.Outcome + ": " + r.Why}
}
