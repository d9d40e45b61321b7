package merge

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/golden"
	"github.com/iobench/iobench/internal/textblock"
)

// TestTextGolden writes the merged block of two agents' fixed records (iobench merge, collect
// and --agents-local print it) and compares it with its golden file; go test -update rewrites it.
func TestTextGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	start := time.Unix(1_800_000_000, 0).UTC()
	set := NewSet("", 2)
	for i := range 2 {
		if err := set.Add(agentRecord("r1", i, 2, start.Add(time.Duration(i)*3*time.Millisecond), samples(rng, 2000))); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := set.Merge([]string{"iobench", "merge"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Text(&b, rec, textblock.TextOptions{Latency: true})
	golden.Check(t, filepath.Join("testdata", "merged.golden"), b.Bytes())
}
