package merge

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMergeWarnsOfAShortOpenLoop checks that the merged record of an open loop given -d 3s warns
// as one generator's record of it does, and that of -d 10s does not.
func TestMergeWarnsOfAShortOpenLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, tc := range []struct {
		duration string
		warned   bool
	}{{"3s", true}, {"10s", false}} {
		start := time.Unix(1_800_000_000, 0)
		set := NewSet("", 2)
		for i := range 2 {
			rec := agentRecord("r1", i, 2, start, samples(rng, 3000))
			rec.LoadModel, rec.Parameters["duration"], rec.Parameters["rate"] = "open", tc.duration, float64(500)
			rec.Throughput.TargetRate = 500
			if err := set.Add(rec); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := set.Merge([]string{"iobench", "merge"})
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(rec.Warnings, func(w string) bool { return strings.HasPrefix(w, "open-loop run shorter than 5s") })
		if warned != tc.warned {
			t.Errorf("-d %s: warnings %q; want the short-run warning %v", tc.duration, rec.Warnings, tc.warned)
		}
	}
}
