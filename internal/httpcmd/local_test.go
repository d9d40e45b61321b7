package httpcmd

import (
	"slices"
	"strings"
	"testing"
)

// TestAgentArgsShareOneSeed: agents of a run with Poisson arrivals draw from one seed (each its
// own stream of it), so the merged record's seed draws the whole run again: a seed the user gave
// is passed on as it is, and without one the run draws one for all its agents.
func TestAgentArgsShareOneSeed(t *testing.T) {
	seeds := func(args ...string) []string {
		cmd := New("http", "")
		if err := cmd.Flags().Parse(args); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range AgentArgs(cmd.Flags()) {
			if strings.HasPrefix(a, "--seed=") {
				out = append(out, a)
			}
		}
		return out
	}
	if got := seeds("-R", "100", "--arrivals", "poisson", "--seed", "7"); !slices.Equal(got, []string{"--seed=7"}) {
		t.Errorf("--seed 7: agents get %v, want [--seed=7]", got)
	}
	if got := seeds("-R", "100", "--arrivals", "poisson"); len(got) != 1 {
		t.Errorf("no --seed: agents get %v, want one seed drawn for the run", got)
	}
	if got := seeds("-R", "100"); len(got) != 0 {
		t.Errorf("even arrivals: agents get %v, want no seed", got)
	}
}
