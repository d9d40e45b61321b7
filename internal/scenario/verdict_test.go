package scenario

import (
	"strings"
	"testing"
)

const verdictSrc = `name: x
workload: hello
impls: [go-hello, node-hello]
params: {load: [closed, open]}
repeats: 2
seed:
  source: repo
  rows:
    - {label: Node, impl: node-hello, params: {load: closed}, throughput: 13874, p99: 9.63ms}
    - {label: Go, impl: go-hello, params: {load: closed}, throughput: 6937}
verdict:
  id: seed4
  title: Seed 4
  question: which is faster?
  claims:
    - says: node beats go
      of: {impl: node-hello, params: {load: closed}, seed: Node}
      over: {impl: go-hello, params: {load: closed}, seed: Go}
---
name: y
workload: hello
impls: [go-hello]
params: {load: closed}
repeats: 1
`

func verdictKnown() Known {
	k := testKnown()
	spec := k.Workloads["hello"]
	spec.Figures = []string{"answered", "p50", "p99", "throughput"}
	k.Workloads["hello"] = spec
	return k
}

// TestVerdict: a file's verdict reaches every run of the file, each claim side holds the runs it
// matches in the document of the seed row it names (go-hello's closed-loop run of scenario y is
// not one of them), and the seed's figure from that row.
func TestVerdict(t *testing.T) {
	s, err := Parse("t.yaml", []byte(verdictSrc), verdictKnown())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Runs {
		if r.Verdict == nil || r.Verdict.ID != "seed4" {
			t.Fatalf("run %s: verdict %+v", r.ID, r.Verdict)
		}
	}
	c := s.Runs[0].Verdict.Claims[0]
	if len(c.Of.Runs) != 2 || len(c.Over.Runs) != 2 || c.Of.SeedFigure != 13874 || c.Over.SeedFigure != 6937 || c.Figure != "throughput" {
		t.Errorf("claim %+v", c)
	}
	for _, id := range c.Of.Runs {
		if !strings.Contains(id, "node-hello") || !strings.Contains(id, "closed") {
			t.Errorf("of matches %s", id)
		}
	}
	if got := c.Of.Label(); got != "node-hello load=closed" {
		t.Errorf("label %q", got)
	}
}

// TestVerdictErrors: every problem of a verdict block is reported at once, each at its line.
func TestVerdictErrors(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"seed: Go}", "seed: Gopher}", `t.yaml:18: no seed row is labelled "Gopher"`},
		{"over: {impl: go-hello, params: {load: closed}", "over: {impl: go-hello, params: {load: open, connections: 3}", "t.yaml:18: this side (go-hello connections=3 load=open) matches no run of scenario x"},
		{"    - says: node beats go\n", "    - says: node beats go\n      figure: speed\n", `t.yaml:17:15: unknown figure "speed"`},
		{"    - says: node beats go\n", "    - says: node beats go\n      figure: p50\n", `seed row "Node" has no p50 figure`},
		{"  id: seed4\n", "  id: seed 4\n", `t.yaml:12:7: verdict id "seed 4"`},
		{"  question: which is faster?\n", "", "t.yaml:12:3: verdict has no question"},
		{"repeats: 1\n", "repeats: 1\nverdict: {id: b, title: t, question: q, claims: []}\n", "t.yaml:25: a second verdict block (the first is at line 12)"},
	} {
		src := strings.Replace(verdictSrc, tc.from, tc.to, 1)
		_, err := Parse("t.yaml", []byte(src), verdictKnown())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q -> %q: got %v, want %q", tc.from, tc.to, err, tc.want)
		}
	}
}
