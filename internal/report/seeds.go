package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// seedSection is one seed's part of the report, built from the records that carry its verdict
// (result.Verdict, from the seed's scenario file): the seed's question, setup and flaw in its
// file's words, its published figures beside ours, our tables that show its flaw, and each of
// its claims computed from the records.
type seedSection struct {
	ID, Anchor, Title     string
	Question, Setup, Flaw string
	Runs                  int
	Seed                  []seedRow
	SeedNote, SeedSources string
	SeedAnchor            string
	Differs               []implDiffers // how each impl of the seed's runs differs from the seed's system
	Tables                []section     // the workloads' own tables of the seed's runs
	Claims                []ClaimResult
	Verdict               section // the claims as a table
	Summary               string  // "Of the seed's 3 claims: 2 hold here, ..."
	holds, direction      int
	fails, uncertain      int
}

// verdictNote says how a claim's outcome is computed.
var verdictNote = fmt.Sprintf("Each claim is a ratio of two of the seed's figures, set beside the same ratio of ours: "+
	"the medians' ratio, and its interval over every pair of repeats (min–max), from the repeats that verified or "+
	"reproduced the seed flaw their variant expects, with its signature; the others are named and left out. "+
	"A claimed difference's direction holds when every pair goes the seed's way and the medians by %.0f%% or more; "+
	"its size holds when ours ÷ the seed's lies within ×/÷ %g for every pair (the claim may state its own band), "+
	"and is stronger than the seed's when it lies beyond it the claim's way. A ratio within %.0f%% of 1 claims no "+
	"difference, which holds when every pair lies within that band of 1. Repeats that scatter across a line are "+
	"\"not shown\". docs/METHOD.md gives the method.", 100*(ClaimMargin-1), SizeTolerance, 100*(ClaimMargin-1))

// seedSections returns a section per seed whose verdict the records carry, ordered by id.
func seedSections(recs []*result.Record) []seedSection {
	byID := map[string][]*result.Record{}
	verdicts := map[string]*result.Verdict{}
	for _, r := range Canonical(recs) {
		if r == nil || r.Verdict == nil {
			continue
		}
		if _, ok := verdicts[r.Verdict.ID]; !ok {
			verdicts[r.Verdict.ID] = r.Verdict
		}
		byID[r.Verdict.ID] = append(byID[r.Verdict.ID], r)
	}
	ids := sortedKeys(verdicts)
	out := make([]seedSection, 0, len(ids))
	for _, id := range ids {
		out = append(out, buildSeedSection(verdicts[id], byID[id]))
	}
	return out
}

func buildSeedSection(v *result.Verdict, recs []*result.Record) seedSection {
	groups := Aggregate(recs)
	s := seedSection{ID: v.ID, Anchor: "seed-" + anchorSafe(v.ID), Title: v.Title, Question: v.Question, Setup: v.Setup, Flaw: workload.FillFlaw(v.Flaw, recs),
		Runs: len(recs), Differs: differsOf(recs), Seed: seedRows(groups), SeedNote: seedNote, SeedSources: seedSources(groups), SeedAnchor: "seed-" + v.ID + "-beside",
		Tables: workloadSections(groups),
		Verdict: section{ID: "verdict-" + v.ID, Title: "Verdict", Note: verdictNote,
			Head: []string{"the seed's claim", "ratio", "figure", "seed", "ours", "verdict"},
			Num:  []bool{false, false, false, true, true, false}}}
	for i := range s.Tables {
		s.Tables[i].ID = s.Anchor + "-" + s.Tables[i].ID // ids stay unique on the page
	}
	for _, c := range v.Claims {
		res := EvaluateClaim(c, recs)
		s.Claims = append(s.Claims, res)
		s.Verdict.Rows = append(s.Verdict.Rows, res.cells())
		switch res.Outcome {
		case ClaimHolds:
			s.holds++
		case ClaimDirection:
			s.direction++
		case ClaimFails:
			s.fails++
		default:
			s.uncertain++
		}
	}
	s.Summary = fmt.Sprintf("Of the seed's %s: %d hold here, %d in direction only (not the seed's size), %d do not, %d not shown or not measured.",
		plural(len(v.Claims), "claim"), s.holds, s.direction, s.fails, s.uncertain)
	return s
}

// implDiffers is one impl's differs lines, as its records carry them (its manifest's differs).
type implDiffers struct {
	Impl, StandsIn string
	Lines          []string
}

// differsNote heads the differs lines in a seed's section.
const differsNote = "How our impls differ from the seed's systems (each impl's manifest, differs:)"

// differsOf returns the differs lines of each impl of recs, sorted by impl; an impl without
// lines says "none recorded". It is nil when no record has lines (records older than the list).
func differsOf(recs []*result.Record) []implDiffers {
	byImpl := map[string]*implDiffers{}
	found := false
	for _, r := range recs {
		if r == nil || r.Impl == "" {
			continue
		}
		d := byImpl[r.Impl]
		if d == nil {
			d = &implDiffers{Impl: r.Impl}
			byImpl[r.Impl] = d
		}
		if d.StandsIn == "" {
			d.StandsIn = r.StandsIn
		}
		if len(d.Lines) == 0 && len(r.Differs) > 0 {
			d.Lines, found = r.Differs, true
		}
	}
	if !found {
		return nil
	}
	out := make([]implDiffers, 0, len(byImpl))
	for _, name := range sortedKeys(byImpl) {
		d := *byImpl[name]
		if len(d.Lines) == 0 {
			d.Lines = []string{"none recorded"}
		}
		out = append(out, d)
	}
	return out
}

// Label is the impl's name, with the seed's system it stands in for.
func (d implDiffers) Label() string {
	if d.StandsIn != "" {
		return d.Impl + " (standing in for " + d.StandsIn + ")"
	}
	return d.Impl
}

// anchorSafe is id with every character an anchor or a Markdown link should not hold (any but
// letters, digits, '.', '_' and '-') replaced by '-': records come from anywhere.
func anchorSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '-'
	}, id)
}

// markdownSeeds writes the seeds' table of contents and a section per seed.
func markdownSeeds(b *strings.Builder, seeds []seedSection) {
	if len(seeds) == 0 {
		return
	}
	b.WriteString("\n## Seeds\n\n")
	for _, s := range seeds {
		fmt.Fprintf(b, "- [%s](#%s)\n", md(s.Title), s.Anchor)
	}
	for _, s := range seeds {
		fmt.Fprintf(b, "\n<a id=\"%s\"></a>\n\n## %s\n\n", s.Anchor, md(s.Title))
		for _, p := range []struct{ k, v string }{{"Question", s.Question}, {"Setup", s.Setup}, {"Flaw", s.Flaw}} {
			if p.v != "" {
				fmt.Fprintf(b, "**%s.** %s\n\n", p.k, md(p.v))
			}
		}
		fmt.Fprintf(b, "%s of this seed in this report. %s\n", plural(s.Runs, "run"), s.Summary)
		if len(s.Differs) > 0 {
			fmt.Fprintf(b, "\n**%s.**\n\n", differsNote)
			for _, d := range s.Differs {
				fmt.Fprintf(b, "- %s\n", md(d.Label()))
				for _, l := range d.Lines {
					fmt.Fprintf(b, "  - %s\n", md(l))
				}
			}
		}
		markdownSeedTable(b, s.Seed, s.SeedSources, "###")
		for _, t := range s.Tables {
			t.markdownAt(b, "###")
		}
		s.Verdict.markdownAt(b, "###")
		b.WriteString("\n")
		for _, c := range s.Claims {
			fmt.Fprintf(b, "- %s\n", md(c.Sentence))
		}
	}
}

// textSeeds is markdownSeeds for the terminal.
func textSeeds(w io.Writer, seeds []seedSection) error {
	for _, s := range seeds {
		fmt.Fprintf(w, "\n=== %s ===\n", s.Title)
		for _, p := range []struct{ k, v string }{{"Question", s.Question}, {"Setup", s.Setup}, {"Flaw", s.Flaw}} {
			if p.v != "" {
				fmt.Fprintf(w, "%s: %s\n", p.k, p.v)
			}
		}
		if len(s.Differs) > 0 {
			fmt.Fprintf(w, "%s:\n", differsNote)
			for _, d := range s.Differs {
				fmt.Fprintf(w, "  %s:\n", d.Label())
				for _, l := range d.Lines {
					fmt.Fprintf(w, "    - %s\n", l)
				}
			}
		}
		if err := textSeedTable(w, s.Seed); err != nil {
			return err
		}
		for _, t := range s.Tables {
			if err := t.text(w); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "\nVerdict (%s):\n", s.Summary)
		for _, c := range s.Claims {
			fmt.Fprintf(w, "  - %s\n", c.Sentence)
		}
	}
	return nil
}
