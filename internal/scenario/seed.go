package scenario

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// SeedRow is one row of the table a seed published, to stand beside the runs it matches in the
// report: the runs of Impl whose parameters equal Params.
type SeedRow struct {
	Source     string         // where the figures come from (the seed's repository, its setup)
	Label      string         // the seed's name for the row, e.g. "ReactPHP"
	Impl       string         // the impl reference of the runs it stands beside
	Params     map[string]any // the parameters those runs have (a subset; empty matches all)
	Throughput float64        // in the workload's unit (req/s, msg/s)
	P50, P99   time.Duration  // zero when the seed gave none
	Errors     string         // the seed's errors as it reported them, e.g. "read 810, write 55"
	// Phases are the seed's figures per phase, per second, for a workload with phases (the
	// bus: fill, commands, events); Throughput is the main one's.
	Phases map[string]float64
	// Scenario is the name of the scenario (document) the row belongs to: a verdict's claim side
	// naming the row stands for runs of that scenario only.
	Scenario string
	Line     int
}

var seedKeys = []string{"source", "rows"}
var seedRowKeys = []string{"label", "impl", "params", "throughput", "p50", "p99", "errors", "phases"}

// seed reads a scenario's seed: block, {source: ..., rows: [{label, impl, params, throughput,
// p50, p99, errors}]}; each row must name one of the scenario's impls and its parameters.
func (p *parser) seed(n *yaml.Node, sc *Scenario, spec WorkloadSpec) []SeedRow {
	if n == nil {
		return nil
	}
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode {
		p.errNode(n, "seed must be a mapping", "e.g. seed: {source: \"repo, setup\", rows: [{label: X, impl: NAME, throughput: 1000}]}")
		return nil
	}
	f := p.fields(m, "seed", seedKeys)
	var source string
	if f["source"] != nil {
		source, _ = p.str(f["source"], "seed source")
	}
	if f["rows"] == nil {
		p.errNode(n, "seed has no rows", "list the seed's figures under rows:")
		return nil
	}
	var out []SeedRow
	for _, it := range p.list(f["rows"]) {
		if row, ok := p.seedRow(it, sc, spec); ok {
			row.Source, row.Scenario = source, sc.Name
			out = append(out, row)
		}
	}
	return out
}

func (p *parser) seedRow(n *yaml.Node, sc *Scenario, spec WorkloadSpec) (SeedRow, bool) {
	before := len(p.errs)
	m, f := p.mapping(n, shape{what: "seed row", example: "{label: ReactPHP, impl: NAME, throughput: 532.7, p99: 40.6ms}",
		keys: seedRowKeys, required: []string{"label", "impl", "throughput"}, hint: "give label, impl and throughput"})
	if m == nil {
		return SeedRow{}, false
	}
	row := SeedRow{Line: m.Line, Params: map[string]any{}}
	if f["label"] != nil {
		row.Label, _ = p.str(f["label"], "label")
	}
	if f["impl"] != nil {
		if s, ok := p.str(f["impl"], "impl"); ok {
			row.Impl = s
			if sc.Impls != nil && !contains(sc.Impls, s) {
				p.errNode(f["impl"], fmt.Sprintf("seed row impl %q is not one of the scenario's impls", s), suggest("impls", s, sc.Impls))
			}
		}
	}
	if v, ok := p.optional(f["throughput"], "throughput", Float); ok {
		row.Throughput = v.(float64)
	}
	if v, ok := p.optional(f["p50"], "p50", Duration); ok {
		row.P50 = v.(time.Duration)
	}
	if v, ok := p.optional(f["p99"], "p99", Duration); ok {
		row.P99 = v.(time.Duration)
	}
	if f["errors"] != nil {
		row.Errors, _ = p.str(f["errors"], "errors")
	}
	p.seedParams(f["params"], spec, row.Params)
	row.Phases = p.seedPhases(f["phases"], spec)
	return row, len(p.errs) == before
}

// seedPhases reads a seed row's phases: {fill: 5900, events: 2450}, each one of the workload's
// phases (WorkloadSpec.Phases) with a rate per second.
func (p *parser) seedPhases(n *yaml.Node, spec WorkloadSpec) map[string]float64 {
	if n == nil {
		return nil
	}
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode || len(spec.Phases) == 0 {
		hint := "this workload has no phases; give its figure as throughput"
		if len(spec.Phases) > 0 {
			hint = "e.g. phases: {" + spec.Phases[0] + ": 5900}"
		}
		p.errNode(n, "a seed row's phases must be a mapping of the workload's phases to rates", hint)
		return nil
	}
	out := map[string]float64{}
	for _, kv := range p.pairs(m, "seed row phases") {
		if !contains(spec.Phases, kv.k.Value) {
			p.errNode(kv.k, fmt.Sprintf("unknown phase %q", kv.k.Value), suggest("phases", kv.k.Value, spec.Phases))
			continue
		}
		if v, ok := p.value(kv.v, kv.k.Value, ParamSpec{Type: Float}); ok {
			out[kv.k.Value] = v.(float64)
		}
	}
	return out
}

// optional reads a typed scalar when it is there.
func (p *parser) optional(n *yaml.Node, what string, t ParamType) (any, bool) {
	if n == nil {
		return nil, false
	}
	return p.value(n, what, ParamSpec{Type: t})
}

// seedParams reads a seed row's params: names of the workload's parameters, one value each.
func (p *parser) seedParams(n *yaml.Node, spec WorkloadSpec, into map[string]any) {
	if n == nil {
		return
	}
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode {
		p.errNode(n, "a seed row's params must be a mapping", "e.g. params: {load: closed}")
		return
	}
	for _, kv := range p.pairs(m, "seed row params") {
		ps, ok := spec.Params[kv.k.Value]
		if !ok {
			p.errNode(kv.k, fmt.Sprintf("unknown parameter %q", kv.k.Value), suggest("parameters", kv.k.Value, keys(spec.Params)))
			continue
		}
		if v, ok := p.value(kv.v, kv.k.Value, ps); ok {
			into[kv.k.Value] = v
		}
	}
}

// seedFor returns the first of rows that run matches: its impl, and each of the row's params.
func seedFor(rows []SeedRow, run Run) *SeedRow {
	for i, r := range rows {
		if r.Impl == run.Impl && paramsMatch(r.Params, run) {
			return &rows[i]
		}
	}
	return nil
}
