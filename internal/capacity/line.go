package capacity

import (
	"fmt"
	"strings"

	"github.com/iobench/iobench/internal/units"
)

// Line is the search's one-line result:
//
//	max sustainable rate: 18,400 req/s with p99 7.9 ms < 20 ms, on 368 connections (bracket 18,400–18,750; confirmed 3 of 3; 11 steps, 94 s)
//
// (", Poisson arrivals" after the connections when the steps' were),
// or what stopped it: the generator, too few connections, the floor, the steps, an interrupt.
func (c *Record) Line() string {
	tail := fmt.Sprintf("%d steps, %.0f s", len(c.Steps), c.Elapsed.Seconds())
	sustained := "no rate tried passed"
	if c.Bracket.Low > 0 {
		sustained = "the service sustained at least " + rate(c.Bracket.Low) + c.withSLO(c.Bracket.Low)
	}
	switch {
	case c.Interrupted:
		return fmt.Sprintf("interrupted: bracket %s (%s)", c.bracketText(), tail)
	case c.Bound == Generator:
		return fmt.Sprintf("generator-bound at %s: %s; %s (%s)", rate(c.lastTarget()), sustained, c.Reason, tail)
	case c.Bound == Connections:
		return fmt.Sprintf("connection-starved at %s with -c %d: %s; rerun with -c %d or more (%s)", rate(c.lastTarget()),
			c.Steps[len(c.Steps)-1].Connections, sustained, c.NeededConnections, tail)
	case c.Bound == Ceiling:
		return fmt.Sprintf("max sustainable rate: ≥ %s, the ceiling,%s (no step failed; %s)", rate(*c.MaxSustainableRate), c.withSLO(*c.MaxSustainableRate), tail)
	case c.MaxSustainableRate != nil:
		return fmt.Sprintf("max sustainable rate: %s%s (bracket %s; confirmed %d of %d%s; %s)", rate(*c.MaxSustainableRate), c.withSLO(*c.MaxSustainableRate),
			c.bracketText(), c.Confirmations.Passed, c.Confirmations.Runs, c.steppedDown(), tail)
	}
	return fmt.Sprintf("no max sustainable rate: %s; %s (bracket %s; %s)", c.Reason, sustained, c.bracketText(), tail)
}

func rate(r float64) string { return units.RateText(r, "req/s") }

func (c *Record) bracketText() string {
	text := func(v float64) string {
		if v == 0 {
			return "?"
		}
		return units.RateText(v, "")
	}
	return text(c.Bracket.Low) + "–" + text(c.Bracket.High)
}

func (c *Record) steppedDown() string {
	if c.Confirmations.Failed == 0 {
		return ""
	}
	return fmt.Sprintf(", after %d failed confirmation(s) stepped down", c.Confirmations.Failed)
}

// withSLO is " with p99 7.9 ms < 20 ms, ..., on 368 connections" from the worst passing step at
// rate: what its SLOs measured there, and the pool it had, which a service's knee can depend on
// (docs/METHOD.md, "What the answer depends on").
func (c *Record) withSLO(at float64) string {
	var worst *StepRecord
	for i := range c.Steps {
		s := &c.Steps[i]
		if s.Verdict == Pass && s.TargetRate == at && (worst == nil || s.P99 > worst.P99) {
			worst = s
		}
	}
	if worst == nil {
		return ""
	}
	arrivals := ""
	if c.Search.Poisson {
		arrivals = ", Poisson arrivals"
	}
	return fmt.Sprintf(" with %s, on %s connections%s", worst.Why, units.Count(int64(worst.Connections)), arrivals)
}

func (c *Record) lastTarget() float64 {
	if len(c.Steps) == 0 {
		return 0
	}
	return c.Steps[len(c.Steps)-1].TargetRate
}

// Progress is one step as a line on stderr:
//
//	step 3 climb: 4,000 req/s, -c 800: fail (service): p99 31.2 ms ≥ 20 ms
func Progress(s StepRecord) string {
	verdict := s.Verdict
	if verdict != Pass {
		verdict = "fail (" + verdict + ")"
	}
	return fmt.Sprintf("step %d %s: %s, -c %d, achieved %s: %s: %s", s.N, s.Phase, rate(s.TargetRate), s.Connections,
		units.RateText(s.Achieved, ""), verdict, strings.TrimSpace(s.Why))
}
