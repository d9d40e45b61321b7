package scenario

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Verdict is what a seed's file says about the seed, for the report's section on it: the seed's
// question, its setup and its flaw in words, and the claims it made, each a ratio of two of our
// groups of runs to set beside the same ratio of the seed's own figures (its seed rows). The
// report computes whether each claim holds from the records; nothing here is a verdict.
type Verdict struct {
	ID       string // the report section's anchor, e.g. "seed1"
	Title    string
	Question string
	Setup    string
	Flaw     string // the seed's flaw, and which of our tables shows it
	Claims   []Claim
	File     string
	Line     int
}

// Claim is one thing the seed claimed: Of's figure over Over's, as the seed measured it (its rows)
// and as we do (the runs each side matches).
type Claim struct {
	Says   string // the claim in the seed's words, e.g. "async is faster than sync"
	Figure string // the figure compared (WorkloadSpec.Figures), "throughput" when not given
	// Tolerance is how far our ratio may lie from the seed's, as a factor either way (ours ÷
	// the seed's within ×/÷ Tolerance), for the claim's size to hold; for a claim of no
	// difference, how far from 1. 0 means the report's default.
	Tolerance float64
	Of        ClaimSide
	Over      ClaimSide
	Line      int
}

// ClaimSide is one side of a claim: the runs of Impl whose parameters equal Params in the
// scenario (document) of the seed row that stands for it.
type ClaimSide struct {
	Impl   string
	Params map[string]any
	// SeedRow is the label of the seed row (in any document of the file) whose figure is the
	// seed's for this side; SeedFigure is that figure, in the claim's figure (see SeedFigure).
	SeedRow    string
	SeedFigure float64
	// Runs are the IDs of the file's runs this side matches, filled when the file is expanded.
	Runs []string
	Line int
}

// Label names the side as a verdict does: the impl and its parameters, "php-fanout route=/async".
func (s ClaimSide) Label() string {
	parts := []string{s.Impl}
	for _, k := range keys(s.Params) {
		parts = append(parts, k+"="+format(s.Params[k]))
	}
	return strings.Join(parts, " ")
}

var verdictKeys = []string{"id", "title", "question", "setup", "flaw", "claims"}
var claimKeys = []string{"says", "figure", "tolerance", "of", "over"}
var sideKeys = []string{"impl", "params", "seed"}

// verdict reads a scenario's verdict: block; its sides are matched to runs and seed rows once the
// whole file is read (resolveVerdict).
func (p *parser) verdict(n *yaml.Node, sc *Scenario, spec WorkloadSpec) *Verdict {
	m, f := p.mapping(n, shape{what: "verdict", example: "verdict: {id: seed1, title: ..., question: ..., claims: [...]}",
		keys: verdictKeys, required: []string{"id", "title", "question", "claims"},
		hint: "give id, title, question and claims (setup and flaw too, in words)"})
	if m == nil {
		return nil
	}
	v := &Verdict{File: p.file, Line: m.Line}
	if f["id"] != nil {
		if s, ok := p.str(f["id"], "verdict id"); ok {
			if !validName.MatchString(s) {
				p.errNode(f["id"], fmt.Sprintf("verdict id %q has characters an anchor should not", s), "use letters, digits, '.', '_' and '-'")
			}
			v.ID = s
		}
	}
	for k, dst := range map[string]*string{"title": &v.Title, "question": &v.Question, "setup": &v.Setup, "flaw": &v.Flaw} {
		if f[k] != nil {
			*dst, _ = p.str(f[k], "verdict "+k)
		}
	}
	if f["claims"] != nil {
		for _, it := range p.list(f["claims"]) {
			if c, ok := p.claim(it, sc, spec); ok {
				v.Claims = append(v.Claims, c)
			}
		}
	}
	return v
}

func (p *parser) claim(n *yaml.Node, sc *Scenario, spec WorkloadSpec) (Claim, bool) {
	before := len(p.errs)
	m, f := p.mapping(n, shape{what: "claim", example: "{says: async is faster, of: {impl: X, seed: LABEL}, over: {impl: Y, seed: LABEL}}",
		keys: claimKeys, required: []string{"says", "of", "over"}, hint: "give says, of and over (figure when it is not throughput)"})
	if m == nil {
		return Claim{}, false
	}
	c := Claim{Figure: "throughput", Line: m.Line}
	if f["says"] != nil {
		c.Says, _ = p.str(f["says"], "says")
	}
	if f["figure"] != nil {
		if s, ok := p.str(f["figure"], "figure"); ok {
			c.Figure = s
			if !contains(spec.Figures, s) {
				p.errNode(f["figure"], fmt.Sprintf("unknown figure %q for workload %s", s, sc.Workload), suggest("figures", s, spec.Figures))
			}
		}
	}
	if f["tolerance"] != nil {
		if x, ok := p.optional(f["tolerance"], "tolerance", Float); ok {
			v := x.(float64)
			if v <= 1 {
				p.errNode(f["tolerance"], fmt.Sprintf("tolerance %g is not above 1", v), "give a factor above 1: 1.5 means within ×/÷ 1.5 of the seed's ratio")
			}
			c.Tolerance = v
		}
	}
	if f["of"] != nil {
		c.Of = p.claimSide(f["of"], sc, spec)
	}
	if f["over"] != nil {
		c.Over = p.claimSide(f["over"], sc, spec)
	}
	return c, len(p.errs) == before
}

func (p *parser) claimSide(n *yaml.Node, sc *Scenario, spec WorkloadSpec) ClaimSide {
	side := ClaimSide{Params: map[string]any{}, Line: n.Line}
	m, f := p.mapping(n, shape{what: "claim side", example: "{impl: php-fanout, params: {route: /async}, seed: \"async, scenario 2\"}",
		keys: sideKeys, required: []string{"impl", "seed"}, hint: "name the impl of our runs and the label of the seed row beside them"})
	if m == nil {
		return side
	}
	if f["impl"] != nil {
		side.Impl, _ = p.str(f["impl"], "impl")
	}
	if f["seed"] != nil {
		side.SeedRow, _ = p.str(f["seed"], "seed row label")
	}
	p.seedParams(f["params"], spec, side.Params)
	return side
}

// resolveVerdict matches the file's verdict to its runs and seed rows: each side must match at
// least one run and name a seed row of the file that has the claim's figure. Every run of the
// file then carries the verdict. At most one document of a file may have one.
func (p *parser) resolveVerdict(s *Suite) {
	var v *Verdict
	for _, sc := range s.Scenarios {
		if sc.Verdict == nil {
			continue
		}
		if v != nil {
			p.errAt(sc.Verdict.Line, 0, fmt.Sprintf("a second verdict block (the first is at line %d)", v.Line),
				"a file reproduces one seed: keep one verdict, in any of its documents")
			return
		}
		v = sc.Verdict
	}
	if v == nil {
		return
	}
	rows := map[string]SeedRow{}
	for _, sc := range s.Scenarios {
		for _, r := range sc.Seed {
			rows[r.Label] = r
		}
	}
	for i := range v.Claims {
		c := &v.Claims[i]
		for _, side := range []*ClaimSide{&c.Of, &c.Over} {
			p.resolveSide(side, c.Figure, s.Runs, rows)
		}
	}
	for i := range s.Runs {
		s.Runs[i].Verdict = v
	}
}

func (p *parser) resolveSide(side *ClaimSide, figure string, runs []Run, rows map[string]SeedRow) {
	row, ok := rows[side.SeedRow]
	if !ok {
		p.errAt(side.Line, 0, fmt.Sprintf("no seed row is labelled %q", side.SeedRow), suggest("seed rows", side.SeedRow, keys(rows)))
		return
	}
	var impls []string
	for _, r := range runs {
		if r.Scenario != row.Scenario {
			continue
		}
		if !contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		if r.Impl == side.Impl && paramsMatch(side.Params, r) {
			side.Runs = append(side.Runs, r.ID)
		}
	}
	if len(side.Runs) == 0 {
		p.errAt(side.Line, 0, fmt.Sprintf("this side (%s) matches no run of scenario %s, where its seed row is", side.Label(), row.Scenario),
			suggest("impls", side.Impl, impls)+"; its params must be values the runs have")
	}
	if side.SeedFigure = SeedFigure(row, figure); side.SeedFigure <= 0 {
		p.errAt(side.Line, 0, fmt.Sprintf("seed row %q has no %s figure", side.SeedRow, figure),
			"give the row that figure (p50:, p99:, phases:) or compare another figure")
	}
}

// SeedFigure returns a seed row's figure for a claim: the phase of that name where the row gives
// phases (the bus), its p50 or p99 in microseconds, else its throughput (the seed's rate, in the
// workload's unit, whatever our figure's name).
func SeedFigure(row SeedRow, figure string) float64 {
	if v, ok := row.Phases[figure]; ok {
		return v
	}
	switch figure {
	case "p50":
		return float64(row.P50.Microseconds())
	case "p99":
		return float64(row.P99.Microseconds())
	}
	return row.Throughput
}

// paramsMatch says whether run has every one of params' values.
func paramsMatch(params map[string]any, run Run) bool {
	for k, v := range params {
		if format(run.Params[k]) != format(v) {
			return false
		}
	}
	return true
}
