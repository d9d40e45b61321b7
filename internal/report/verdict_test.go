package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// claimSide is a side of claimOf: label a, its runs a.r1, a.r2 (as a suite's run ids).
func claimSide(label string, seed float64) result.ClaimSide {
	return result.ClaimSide{Label: label, SeedRow: label + "'s row", Seed: seed, Runs: []string{"s." + label + ".r1", "s." + label + ".r2"}}
}

// claimOf is the claim "a over b" whose seed figures are seedA and seedB.
func claimOf(seedA, seedB float64) result.Claim {
	return result.Claim{Says: "a beats b", Figure: "throughput", Of: claimSide("a", seedA), Over: claimSide("b", seedB)}
}

// sideRecs returns a verified hello record per throughput, with the side's run ids in turn.
func sideRecs(label string, tps ...float64) []*result.Record {
	var out []*result.Record
	for i, tp := range tps {
		r := crafted("hello", label, "async", "closed", tp, 1000, 10*len(label)+i)
		r.Parameters = map[string]any{"run_id": fmt.Sprintf("s.%s.r%d", label, i%2+1)}
		out = append(out, r)
	}
	return out
}

// unverified marks r as failing its own check.
func unverified(r *result.Record) *result.Record {
	r.Verification = &result.Verification{Why: "the store's count: 90 counted for 100 responses"}
	return r
}

// collapsedRec is a verified run in which every request timed out.
func collapsedRec(r *result.Record) *result.Record {
	r.Throughput.Mean, r.Counts = 0, result.Counts{Attempted: 100, Failed: 100, Errors: map[string]int64{"timeout": 100}}
	r.Latency = nil
	return r
}

// TestEvaluateClaim judges hand-made record sets, each in both orders: the outcome, the
// direction and size apart, and the runs left out named.
func TestEvaluateClaim(t *testing.T) {
	for _, tc := range []struct {
		name          string
		claim         result.Claim
		of, over      []*result.Record
		outcome, want string // want: a part of the sentence
	}{
		{"size holds", claimOf(10, 1), sideRecs("a", 100, 110), sideRecs("b", 10, 11), ClaimHolds, "size holds (1.00 of the seed's"},
		{"size outside its band (10x claimed, 1.66x here)", claimOf(10.04, 1), sideRecs("a", 166, 170), sideRecs("b", 100, 101),
			ClaimDirection, "direction holds; size does not (0.17 of the seed's, outside ×/÷ 1.5)"},
		{"size at the band's edge", claimOf(10, 1), sideRecs("a", 700, 720), sideRecs("b", 100, 101), ClaimHolds, "within ×/÷ 1.5"},
		{"size across the band", claimOf(10, 1), sideRecs("a", 500, 900), sideRecs("b", 100, 101), ClaimDirection, "size not shown"},
		{"a claim's own band", result.Claim{Says: "a beats b", Figure: "throughput", Tolerance: 3, Of: claimSide("a", 10), Over: claimSide("b", 1)},
			sideRecs("a", 400, 410), sideRecs("b", 100, 101), ClaimHolds, "within ×/÷ 3"},
		{"stronger than the seed's", claimOf(3, 1), sideRecs("a", 500, 510), sideRecs("b", 10, 10.5), ClaimHolds, "direction holds; size stronger than the seed's (16.42 of the seed's"},
		{"direction fails", claimOf(2, 1), sideRecs("a", 50, 51), sideRecs("b", 100, 101), ClaimFails, "ours is below 1, the seed's above 1"},
		{"repeats overlap", claimOf(2, 1), sideRecs("a", 90, 130), sideRecs("b", 100, 110), ClaimUnclear, "the repeats overlap"},
		{"a claim below 1 mirrored", claimOf(1, 4), sideRecs("a", 25, 26), sideRecs("b", 100, 101), ClaimHolds, "size holds"},
		{"sameness scattered wider than its band", claimOf(100, 101), sideRecs("a", 5, 200), sideRecs("b", 100, 105), ClaimUnclear,
			"the repeats scatter wider than ×/÷ 1.1 of 1"},
		{"sameness holds", claimOf(100, 101), sideRecs("a", 100, 102), sideRecs("b", 101, 100.5), ClaimHolds, "within ×/÷ 1.1 of 1"},
		{"sameness fails", claimOf(100, 101), sideRecs("a", 150, 160), sideRecs("b", 100, 101), ClaimFails, "differs by more than"},
		{"a side unverified: its run left out and named", claimOf(10, 1), append(sideRecs("a", 100), unverified(sideRecs("a", 0, 5)[1])),
			sideRecs("b", 10, 11), ClaimHolds, "left out: s.a.r2 (the store's count: 90 counted for 100 responses)"},
		{"a side failed", claimOf(10, 1), []*result.Record{unverified(sideRecs("a", 100)[0])}, sideRecs("b", 10, 11), ClaimUnmeasured,
			"no run of a that counts"},
		{"a side missing", claimOf(10, 1), nil, sideRecs("b", 10, 11), ClaimUnmeasured, "no run of a that is in these records"},
		{"a collapse to 0", claimOf(0.1, 1), []*result.Record{collapsedRec(sideRecs("a", 1)[0]), collapsedRec(sideRecs("a", 0, 1)[1])},
			sideRecs("b", 1000, 1010), ClaimHolds, "= 0× here (seed: 0.10×): direction holds; size stronger than the seed's (a side collapsed to 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := append(slices.Clone(tc.of), tc.over...)
			got := EvaluateClaim(tc.claim, recs)
			if got.Outcome != tc.outcome || !strings.Contains(got.Sentence, tc.want) {
				t.Errorf("outcome %q, sentence %q; want %q and %q", got.Outcome, got.Sentence, tc.outcome, tc.want)
			}
			slices.Reverse(recs)
			if again := EvaluateClaim(tc.claim, recs); again.Sentence != got.Sentence {
				t.Errorf("the records reversed give %q, not %q", again.Sentence, got.Sentence)
			}
		})
	}
}

// TestClaimPoolsSuites: the records of two suites of one file, whose run ids repeat, pool as
// repeats of one group whatever their order: every record counts, and the verdict is the same.
func TestClaimPoolsSuites(t *testing.T) {
	first := append(sideRecs("a", 100, 110), sideRecs("b", 10, 11)...)
	second := append(sideRecs("a", 40, 45), sideRecs("b", 10, 10.5)...)
	for i, r := range second {
		r.StartedAt = r.StartedAt.AddDate(0, 0, 1+i)
	}
	ab := EvaluateClaim(claimOf(10, 1), append(slices.Clone(first), second...))
	ba := EvaluateClaim(claimOf(10, 1), append(slices.Clone(second), first...))
	if ab.Sentence != ba.Sentence || ab.Of.N != 4 || ab.Over.N != 4 {
		t.Fatalf("A then B: %q (%d, %d runs); B then A: %q", ab.Sentence, ab.Of.N, ab.Over.N, ba.Sentence)
	}
	twice := EvaluateClaim(claimOf(10, 1), append(slices.Clone(first), first...))
	if twice.Of.N != 2 {
		t.Errorf("the same records given twice count %d times, want once each", twice.Of.N/2)
	}
}

// TestLimitedSide: where a side was limited by a service, a size that does not hold says so.
func TestLimitedSide(t *testing.T) {
	of := sideRecs("a", 166, 170)
	for _, r := range of {
		r.Environment.Cores = 2
		r.Processes = []result.Process{{Name: "a", Role: "sut", CPUPercent: 40, HotThreads: []float64{40}},
			{Name: "rabbitmq", Role: "service", CPUPercent: 98, HotThreads: []float64{97}}}
	}
	got := EvaluateClaim(claimOf(10, 1), append(of, sideRecs("b", 100, 101)...))
	if want := "rabbitmq's CPU limited a; the seed's size cannot be tested on 2 cores"; !strings.Contains(got.Sentence, want) {
		t.Errorf("sentence %q lacks %q", got.Sentence, want)
	}
}

// TestStandInNamed: a side whose runs stand in for the seed's system names both.
func TestStandInNamed(t *testing.T) {
	of := sideRecs("a", 100, 110)
	for _, r := range of {
		r.StandsIn = "Aerys NativeReactor"
	}
	got := EvaluateClaim(claimOf(10, 1), append(of, sideRecs("b", 10, 11)...))
	if !strings.Contains(got.Sentence, "a (standing in for Aerys NativeReactor) ÷ b") {
		t.Errorf("sentence %q does not name the stand-in", got.Sentence)
	}
}
