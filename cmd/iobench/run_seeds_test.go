package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedsLoad: `iobench run seeds` reads the five seeds' embedded files as one suite, at the
// short size and with --full, every run carrying its seed's verdict, and every claim's two sides
// naming runs of the suite.
func TestSeedsLoad(t *testing.T) {
	for _, full := range []bool{false, true} {
		s, err := loadSuite([]string{seedsArg}, "../../impls", full)
		if err != nil {
			t.Fatalf("full=%v: %v", full, err)
		}
		if s.Name != "seeds" {
			t.Errorf("suite name %q", s.Name)
		}
		ids := map[string]bool{}
		runs := map[string]bool{}
		for _, r := range s.Runs {
			if r.Verdict == nil {
				t.Fatalf("run %s (%s) has no verdict", r.ID, r.File)
			}
			ids[r.Verdict.ID] = true
			runs[r.ID] = true
		}
		if len(ids) != 5 {
			t.Errorf("full=%v: verdicts %v, want the five seeds'", full, ids)
		}
		for _, r := range s.Runs {
			for _, c := range r.Verdict.Claims {
				for _, side := range [][]string{c.Of.Runs, c.Over.Runs} {
					for _, id := range side {
						if !runs[id] {
							t.Errorf("claim %q names run %s, not in the suite", c.Says, id)
						}
					}
				}
			}
		}
		t.Logf("full=%v: %d runs", full, len(s.Runs))
	}
}

// TestRunFilesTogether: scenario files given together are one suite; two of them using one
// scenario name are refused with both places, exit 2.
func TestRunFilesTogether(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	doc := "name: same\nworkload: http\nimpls: [x]\nparams: {url: \"http://127.0.0.1:1/\"}\nrepeats: 1\n"
	os.WriteFile(a, []byte(doc), 0o644)
	os.WriteFile(b, []byte(doc), 0o644)
	code, _, stderr := runCLI("run", a, b)
	if code != 2 || !strings.Contains(stderr, "b.yaml:1") || !strings.Contains(stderr, "a.yaml:1") {
		t.Fatalf("exit %d, stderr %q: want 2 naming both places", code, stderr)
	}
	os.WriteFile(b, []byte(strings.Replace(doc, "same", "other", 1)), 0o644)
	s, err := loadSuite([]string{a, b}, "../../impls", false)
	if err != nil || s.Name != "a+b" || len(s.Runs) != 2 || s.Runs[1].Index != 1 {
		t.Fatalf("merged suite: %v", err)
	}
}
