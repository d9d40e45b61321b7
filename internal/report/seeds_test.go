package report

import (
	"bytes"
	"html"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/golden"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/hello"
)

// loadSeedRecords reads testdata/seeds: records of real runs of the seeds' scenario files at
// their short sizes (those their claims name), each with the verdict the suite attaches to its
// run id from the current files; their HDR histograms and per-second series are left out to keep
// them small. The machine was busy with other work: the figures are real, not representative.
func loadSeedRecords(t testing.TB) []*result.Record { return loadRecordsFrom(t, "seeds") }

// TestSeedSections: every seed whose records are there has a section in the three reports,
// reachable from the table of contents, with its table beside the seed, a table of ours that
// shows its flaw, and a verdict per claim computed from the records.
func TestSeedSections(t *testing.T) {
	recs := loadSeedRecords(t)
	ids := map[string]bool{}
	for _, r := range recs {
		ids[r.Verdict.ID] = true
	}
	seeds := seedSections(recs)
	if len(seeds) != len(ids) || len(seeds) != 5 {
		t.Fatalf("%d seed sections for the verdicts %v, want the five seeds'", len(seeds), ids)
	}
	out := renderAll(t, recs)
	for _, s := range seeds {
		if len(s.Seed) == 0 || len(s.Tables) == 0 || len(s.Verdict.Rows) == 0 || len(s.Verdict.Rows) != len(s.Claims) {
			t.Errorf("%s: %d rows beside the seed, %d tables, %d verdict rows for %d claims", s.ID, len(s.Seed), len(s.Tables),
				len(s.Verdict.Rows), len(s.Claims))
		}
		for _, c := range s.Claims {
			if c.Outcome == "" || !strings.Contains(c.Sentence, c.verdictText()) || !strings.Contains(c.Sentence, RatioText(c.Seed)) {
				t.Errorf("%s: claim %q: outcome %q, sentence %q", s.ID, c.Claim.Says, c.Outcome, c.Sentence)
			}
		}
		for name, text := range out {
			title, sentence := s.Title, s.Claims[0].Sentence
			if name == "html" {
				text = html.UnescapeString(text)
			}
			if name == "markdown" {
				title, sentence = md(title), md(sentence)
			}
			if !strings.Contains(text, title) || !strings.Contains(text, sentence) {
				t.Errorf("%s lacks seed %s's title or verdict", name, s.ID)
			}
		}
		for _, want := range []string{`<a href="#` + s.Anchor + `">`, `<section id="` + s.Anchor + `" class="seed">`} {
			if !strings.Contains(out["html"], want) {
				t.Errorf("html lacks %s", want)
			}
		}
		if !strings.Contains(out["markdown"], "](#"+s.Anchor+")") || !strings.Contains(out["markdown"], `<a id="`+s.Anchor+`"></a>`) {
			t.Errorf("markdown lacks the link or the anchor of %s", s.ID)
		}
	}
	var b bytes.Buffer
	if err := Markdown(&b, recs); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "summary-seeds.md.golden"), b.Bytes())
}

// TestSeedVerdictFollowsRecords: a claim's verdict is computed from the records. Each decisive
// claim of the real records (a claimed difference that holds, or does not because ours goes the
// other way) is computed again after the records of its two sides trade places, which inverts
// our ratio: the verdict must change with it.
func TestSeedVerdictFollowsRecords(t *testing.T) {
	recs := loadSeedRecords(t)
	decisive := 0
	for _, s := range seedSections(recs) {
		id := s.ID
		for _, c := range s.Claims {
			same := "about the same as"
			if c.Outcome != ClaimHolds && c.Outcome != ClaimFails || c.SeedWords == same || claimDirection(c.Ours) == same {
				continue
			}
			decisive++
			swapped := swapSides(t, recs, c.Claim)
			again := EvaluateClaim(c.Claim, swapped)
			if again.Outcome == c.Outcome {
				t.Errorf("%s: %q %s at %s and still %s at %s with the sides' records swapped", id, c.Claim.Says,
					c.Outcome, RatioText(c.Ours), again.Outcome, RatioText(again.Ours))
			}
			if want := 1 / c.Ours; again.Ours < want*0.999 || again.Ours > want*1.001 {
				t.Errorf("%s: %q: swapped ratio %v, want %v", id, c.Claim.Says, again.Ours, want)
			}
		}
	}
	if decisive == 0 {
		t.Fatal("no claim of the test records holds or fails: nothing to check")
	}
}

// swapSides returns copies of recs in which the records of c's two sides trade run ids, pair
// by pair (the sides have as many runs as each other: the repeats).
func swapSides(t *testing.T, recs []*result.Record, c result.Claim) []*result.Record {
	t.Helper()
	if len(c.Of.Runs) != len(c.Over.Runs) {
		t.Skipf("claim %q: sides of %d and %d runs", c.Says, len(c.Of.Runs), len(c.Over.Runs))
	}
	swap := map[string]string{}
	for i := range c.Of.Runs {
		swap[c.Of.Runs[i]], swap[c.Over.Runs[i]] = c.Over.Runs[i], c.Of.Runs[i]
	}
	var out []*result.Record
	for _, r := range recs {
		cp := *r
		cp.Parameters = map[string]any{}
		for k, v := range r.Parameters {
			cp.Parameters[k] = v
		}
		if id, ok := swap[r.Parameters["run_id"].(string)]; ok {
			cp.Parameters["run_id"] = id
		}
		out = append(out, &cp)
	}
	return out
}

// TestSeedDiffersAndTurnedAway: a seed's section lists each impl's differs lines as its records
// carry them (an impl without lines says so; no list at all for records without any), and a
// flaw's {turned_away} becomes what the runs counted, not a fixed number.
func TestSeedDiffersAndTurnedAway(t *testing.T) {
	var recs []*result.Record
	var seed4 []*result.Record
	for _, r := range loadSeedRecords(t) {
		cp := *r
		if r.Verdict.ID == "seed4" {
			v := *r.Verdict
			v.Flaw = "Aerys turned connections away: " + hello.TurnedAwayMark + "."
			cp.Verdict = &v
			seed4 = append(seed4, &cp)
		}
		recs = append(recs, &cp)
	}
	if len(seed4) < 3 {
		t.Fatalf("%d seed 4 records, want at least 3", len(seed4))
	}
	if s := seedSectionOf(t, recs, "seed4"); s.Differs != nil || !strings.Contains(s.Flaw, "none counted") {
		t.Fatalf("records without differs or a probe: differs %v, flaw %q", s.Differs, s.Flaw)
	}
	seed4[0].Differs = []string{"first difference", "second difference"}
	seed4[0].SetSection(hello.ConnLimitKey, &hello.ConnLimit{Opened: 100, Answered: 58, TurnedAway: 42})
	seed4[1].SetSection(hello.ConnLimitKey, &hello.ConnLimit{Opened: 100, Answered: 61, TurnedAway: 39})
	s := seedSectionOf(t, recs, "seed4")
	if want := "Aerys turned connections away: 39 to 42 of 100 (2 runs)."; s.Flaw != want {
		t.Errorf("flaw %q, want %q", s.Flaw, want)
	}
	var lines, none int
	for _, d := range s.Differs {
		switch {
		case d.Impl == seed4[0].Impl:
			lines++
			if !slices.Equal(d.Lines, seed4[0].Differs) {
				t.Errorf("%s: lines %q", d.Impl, d.Lines)
			}
		case slices.Equal(d.Lines, []string{"none recorded"}):
			none++
		}
	}
	if lines != 1 || none != len(s.Differs)-1 || none == 0 {
		t.Errorf("differs %+v: want %s's lines and none recorded for the others", s.Differs, seed4[0].Impl)
	}
	for name, text := range renderAll(t, recs) {
		if name == "html" {
			text = html.UnescapeString(text)
		}
		for _, want := range []string{differsNote, "second difference", "39 to 42 of 100"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	hello.ConnLimitOf(seed4[1]).TurnedAway = 42
	if s := seedSectionOf(t, recs, "seed4"); !strings.Contains(s.Flaw, "42 of 100 in each of 2 runs") {
		t.Errorf("flaw %q", s.Flaw)
	}
}

func seedSectionOf(t *testing.T, recs []*result.Record, id string) seedSection {
	t.Helper()
	for _, s := range seedSections(recs) {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no section %s", id)
	return seedSection{}
}
