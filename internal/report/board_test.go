package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// standIn is what the amp loop's manifest says it stands in for; the test records predate
// stands_in_for, so withStandIns sets it on copies.
const standIn = "Aerys NativeReactor"

// withStandIns returns copies of recs in which the amp loop's runs stand in for Aerys, as a run
// of today's manifests records.
func withStandIns(recs []*result.Record) []*result.Record {
	out := make([]*result.Record, len(recs))
	for i, r := range recs {
		c := *r
		if c.Impl == "php-amp-loop" {
			c.StandsIn = standIn
		}
		out[i] = &c
	}
	return out
}

// edgeSeed is a seed of id of three crafted runs, text in each of its texts: a run of A, a run of
// B that collapsed (every request failed, its check held: a true 0), and a claim naming runs of
// C, which are not there. Its claims give ours +Inf (A over B), 0 (B over A) and none (A over C).
func edgeSeed(id, text string) []*result.Record {
	side := func(label, run string, seed float64) result.ClaimSide {
		return result.ClaimSide{Label: label + " " + text, SeedRow: text, Seed: seed, Runs: []string{run}}
	}
	v := &result.Verdict{ID: id, Title: "Edge " + text, Question: text, Claims: []result.Claim{
		{Says: "A beats B " + text, Figure: "throughput", Of: side("A", "edge.a.r1", 2), Over: side("B", "edge.b.r1", 1)},
		{Says: "B beats A " + text, Figure: "throughput", Of: side("B", "edge.b.r1", 2), Over: side("A", "edge.a.r1", 1)},
		{Says: "A beats C " + text, Figure: "throughput", Of: side("A", "edge.a.r1", 3), Over: side("C", "edge.c.r1", 1)},
	}}
	a := crafted("http", "edge-a", "async", "closed", 1000, 5000, 1)
	b := crafted("http", "edge-b", "async", "closed", 0, 5000, 2)
	b.Counts = result.Counts{Attempted: 10, Failed: 10, Errors: map[string]int64{"timeout": 10}}
	a.Parameters, b.Parameters = map[string]any{"run_id": "edge.a.r1"}, map[string]any{"run_id": "edge.b.r1"}
	for _, r := range []*result.Record{a, b} {
		r.Verdict, r.StandsIn = v, text
	}
	return []*result.Record{a, b}
}

// TestBoardRows: the board of the real seed records has a section per seed and a row per claim,
// each naming the impls that ran (stand-ins too) and drawing the claim's own figures: the
// seed's ratio and band, and our interval around ours, all on the one axis.
func TestBoardRows(t *testing.T) {
	seeds := seedSections(withStandIns(loadSeedRecords(t)))
	b := newBoard(seeds)
	if b == nil || len(b.Seeds) != len(seeds) {
		t.Fatalf("board %+v for %d seeds", b, len(seeds))
	}
	standIns := 0
	for i, s := range seeds {
		if len(b.Seeds[i].Rows) != len(s.Claims) || b.Seeds[i].Anchor != s.Anchor {
			t.Errorf("%s: %d rows for %d claims, anchor %q", s.ID, len(b.Seeds[i].Rows), len(s.Claims), b.Seeds[i].Anchor)
			continue
		}
		for j, c := range s.Claims {
			row := b.Seeds[i].Rows[j]
			checkRow(t, b.Axis, c, row)
			if strings.Contains(c.Claim.Of.Label+c.Claim.Over.Label, "php-amp-loop") {
				standIns++
				if !strings.Contains(row.Ratio, "(standing in for "+standIn+")") {
					t.Errorf("%s: %q: the stand-in is not named in %q", s.ID, c.Claim.Says, row.Ratio)
				}
			}
		}
	}
	if standIns == 0 {
		t.Error("no claim of the test records is about the amp loop: nothing checked its stand-in")
	}
}

// checkRow checks a claim's row against the claim: its texts, and its marks where they are.
func checkRow(t *testing.T, a boardAxis, c ClaimResult, row boardRow) {
	t.Helper()
	if row.Says != c.Claim.Says || row.Ratio != c.OfLabel+" ÷ "+c.OverLabel || row.Outcome != c.Outcome ||
		!strings.HasSuffix(c.verdictText(), row.Details) || row.Details == "" {
		t.Errorf("%q: row %+v does not say the claim's %q, %q, %q", c.Claim.Says, row, c.OfLabel, c.Outcome, c.verdictText())
	}
	if c.Seed > 0 {
		checkMark(t, c.Claim.Says+": the seed's", a, row.Strip.Seed, c.Seed)
	}
	checkBand(t, c, row.Strip.Band)
	if c.Outcome == ClaimUnmeasured {
		if row.Strip.Ours != nil || row.Strip.Lo != nil || row.Ours != "–" {
			t.Errorf("%q is not measured, yet the row shows ours %+v, %q", c.Claim.Says, row.Strip.Ours, row.Ours)
		}
		return
	}
	s := row.Strip
	checkMark(t, c.Claim.Says+": our interval's low", a, s.Lo, c.Lo)
	checkMark(t, c.Claim.Says+": our", a, s.Ours, c.Ours)
	checkMark(t, c.Claim.Says+": our interval's high", a, s.Hi, c.Hi)
	if s.Lo.X > s.Ours.X || s.Ours.X > s.Hi.X {
		t.Errorf("%q: marks %v, %v, %v out of order", c.Claim.Says, s.Lo.X, s.Ours.X, s.Hi.X)
	}
	if c.Lo != c.Hi && !strings.Contains(row.Ours, boardRatioText(c.Lo)+"–"+boardRatioText(c.Hi)) {
		t.Errorf("%q: ours %q does not give the interval %v–%v", c.Claim.Says, row.Ours, c.Lo, c.Hi)
	}
}

// checkMark checks that the mark of v is v on the axis, which holds every ratio within
// boardReach of 1; 0 (a side at 0) at its left edge, +Inf at its right, each marked past it.
func checkMark(t *testing.T, what string, a boardAxis, m *boardMark, v float64) {
	t.Helper()
	switch {
	case m == nil:
		t.Errorf("%s ratio %v has no mark", what, v)
	case v == 0 && (m.Off != -1 || m.X != a.Min), math.IsInf(v, 1) && (m.Off != 1 || m.X != a.Max):
		t.Errorf("%s ratio %v: mark %+v, want it past the edge of the axis %v–%v", what, v, m, a.Min, a.Max)
	case v >= 1/boardReach && v <= boardReach && (m.Off != 0 || !near(m.X, v) || m.X < a.Min || m.X > a.Max):
		t.Errorf("%s ratio %v: mark %+v, want it on the axis %v–%v", what, v, m, a.Min, a.Max)
	}
}

// checkBand checks a claim's band: centred on the seed's ratio (on 1 for a claim of no
// difference), ×/÷ the tolerance the claim was judged on.
func checkBand(t *testing.T, c ClaimResult, band []float64) {
	t.Helper()
	centre := c.Seed
	if c.SeedWords == "about the same as" {
		centre = 1
	}
	if len(band) != 2 || !near(math.Sqrt(band[0]*band[1]), centre) ||
		c.Outcome != ClaimUnmeasured && !near(math.Sqrt(band[1]/band[0]), c.Tolerance) {
		t.Errorf("%q: band %v, want %v ×/÷ %v", c.Claim.Says, band, centre, c.Tolerance)
	}
}

// near says whether a, a figure as the chart gets it (four significant digits), is b.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-3*math.Abs(b) }

// TestBoardEdges: a side at 0 puts ours past the axis, drawn at its edge with its text (∞× or
// 0×) and an arrow in the text strip; a claim not measured draws no ours; the chart's data
// stays JSON (which has no infinity).
func TestBoardEdges(t *testing.T) {
	seeds := seedSections(edgeSeed("edge", "x"))
	b := newBoard(seeds)
	if b == nil || len(b.Seeds) != 1 || len(b.Seeds[0].Rows) != 3 {
		t.Fatalf("board %+v: want one seed of three claims", b)
	}
	rows := b.Seeds[0].Rows
	for i, c := range seeds[0].Claims {
		checkRow(t, b.Axis, c, rows[i])
	}
	tests := []struct {
		name          string
		off           int
		x, text, cell string
	}{
		{"a side over 0", 1, "max", "∞×", ">"},
		{"0 over a side", -1, "min", "0×", "<"},
	}
	for i, tt := range tests {
		s := rows[i].Strip
		if s.Ours == nil || s.Ours.Off != tt.off || s.Ours.Text != tt.text {
			t.Errorf("%s: ours %+v, want off %d, %q", tt.name, s.Ours, tt.off, tt.text)
			continue
		}
		if edge := map[string]float64{"min": b.Axis.Min, "max": b.Axis.Max}[tt.x]; s.Ours.X != edge {
			t.Errorf("%s: ours at %v, want the axis's %s %v", tt.name, s.Ours.X, tt.x, edge)
		}
		if line := []rune(b.Axis.text(s)); string(line[b.Axis.cell(s.Ours.X)]) != tt.cell {
			t.Errorf("%s: strip %q has no %s at its edge", tt.name, string(line), tt.cell)
		}
	}
	if s := rows[2].Strip; rows[2].Outcome != ClaimUnmeasured || s.Ours != nil || s.Lo != nil || s.Seed == nil {
		t.Errorf("not measured: row %+v", rows[2])
	}
	if _, err := json.Marshal(b.chart()); err != nil {
		t.Errorf("the board's chart data: %v", err)
	}
}

// TestBoardOnlyForSeeds: records without a verdict make no board and no folds.
func TestBoardOnlyForSeeds(t *testing.T) {
	recs := loadRecords(t)
	if b := newBoard(seedSections(recs)); b != nil {
		t.Errorf("a board for records of no seed: %+v", b)
	}
	if f := foldBySeed(recs); f != nil {
		t.Errorf("folds for records of no seed: %+v", f)
	}
	p := buildPage(recs, HTMLOptions{})
	if p.Board != nil || p.Folds != nil || p.Data.Board != nil {
		t.Error("the page of records of no seed has a board or folds")
	}
}

// TestFoldBySeed: every record is in one fold, its seed's (by the verdict's id, in the seeds'
// order), and those of no seed in the last.
func TestFoldBySeed(t *testing.T) {
	seeds := loadSeedRecords(t)
	recs := append(append([]*result.Record{}, loadRecords(t)...), seeds...)
	folds := foldBySeed(recs)
	if len(folds) != len(seedSections(seeds))+1 {
		t.Fatalf("%d folds for %d seeds and the records of none", len(folds), len(seedSections(seeds)))
	}
	n := 0
	for i, f := range folds {
		n += len(f.Records)
		for _, r := range f.Records {
			if id := verdictID(r); id != f.ID {
				t.Errorf("fold %q holds a record of %q", f.ID, id)
			}
		}
		if i > 0 && f.ID != "" && f.ID < folds[i-1].ID {
			t.Errorf("fold %q after %q", f.ID, folds[i-1].ID)
		}
	}
	if last := folds[len(folds)-1]; last.ID != "" || len(last.Records) != len(loadRecords(t)) {
		t.Errorf("the last fold is %q of %d records, want the %d of no seed", last.ID, len(last.Records), len(loadRecords(t)))
	}
	if n != len(Canonical(recs)) {
		t.Errorf("%d records in the folds, want %d", n, len(Canonical(recs)))
	}
}

// TestMarkdownOpensWithBoard: summary.md of a seeds run has the board as its first section, a
// table row per claim (each with its strip), and then the runs, folded under a heading per seed;
// of records of no seed it has neither.
func TestMarkdownOpensWithBoard(t *testing.T) {
	recs := loadSeedRecords(t)
	var b strings.Builder
	if err := Markdown(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	_, rest, _ := strings.Cut(out, "\n## ")
	board, _, _ := strings.Cut(rest, "\n## ")
	claims := 0
	for _, s := range seedSections(recs) {
		claims += len(s.Claims)
		if !strings.Contains(out, "\n### "+md(s.Title)+"\n") {
			t.Errorf("the runs of %s have no heading of their own", s.ID)
		}
	}
	if rows := strings.Count(board, " | `"); !strings.HasPrefix(rest, "Verdicts\n") || rows != claims {
		t.Errorf("summary.md's first section is %.20q with %d strips, want the verdicts with %d", rest, rows, claims)
	}
	b.Reset()
	if err := Markdown(&b, loadRecords(t)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "## Verdicts") || strings.Contains(b.String(), "\n### ") {
		t.Error("summary.md of records of no seed has a board or folds")
	}
}
