package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Limits on what one file may ask for, so that a typo cannot expand into a week of runs and a
// hostile file cannot exhaust memory.
const (
	MaxFileSize  = 1 << 20 // bytes
	MaxScenarios = 100     // documents per file
	MaxRuns      = 10000   // runs per file, all scenarios together
	MaxRepeats   = 1000
)

// DefaultRepeats is the number of repeats of a scenario that does not say.
const DefaultRepeats = 3

// Suite is one scenario file: its scenarios and the runs they expand into.
type Suite struct {
	// Name is the file's base name without its extension ("quick" for scenarios/quick.yaml).
	Name      string
	Path      string
	Scenarios []*Scenario
	// Runs are the scenarios expanded, in the order they should run.
	Runs []Run
}

// Scenario is one YAML document of a file, validated.
type Scenario struct {
	Name     string
	Workload string
	Impls    []string // empty only for a workload that accepts any impl (the run's Impl is "")
	Params   []Param  // in file order
	Repeats  int
	Warmup   time.Duration // zero for an untimed workload
	Duration time.Duration // zero for an untimed workload
	Services map[string]Service
	Seed     []SeedRow // the seed's published figures, to stand beside the runs they match
	CPUs     CPUs      // where the generator and the impl run; zero sets leave them to the kernel
	Verdict  *Verdict  // the seed's question and claims (a verdict: block); the file's runs carry it
	File     string
	Line     int // where the document begins
}

// Param is one parameter as a scenario sets it: one value, or several for a matrix.
type Param struct {
	Name   string
	Values []any // typed as ParamSpec.Type says; more than one makes a matrix
	Line   int
}

// Service kinds: how a run reaches a backing service.
const (
	ServiceAuto     = "auto"     // what the workload finds: local servers when installed, else embedded
	ServiceEmbedded = "embedded" // inside iobench (NATS, SQLite)
	ServiceLocal    = "local"    // started by iobench from the binaries installed on the machine
	ServiceExternal = "external" // a server the user runs, at URL
)

// Service says how to reach one backing service.
type Service struct {
	Kind string // ServiceAuto, ServiceEmbedded, ServiceLocal or ServiceExternal
	URL  string // for ServiceExternal
}

// String returns the form a scenario file uses: the kind, or the URL of an external service.
func (s Service) String() string {
	if s.Kind == ServiceExternal {
		return s.URL
	}
	return s.Kind
}

// Load reads the scenario file at path, validates it against known and expands it into runs.
// Problems in the file come back all at once as Errors (which wrap ErrInvalid); a file that
// cannot be read comes back as the read error.
func Load(path string, known Known) (*Suite, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(path, data, known)
}

// Parse is Load on data already read; path names the file in messages and the suite.
func Parse(path string, data []byte, known Known) (*Suite, error) {
	p := &parser{file: path, known: known}
	s := &Suite{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Path: path}
	if len(data) > MaxFileSize {
		p.errAt(0, 0, fmt.Sprintf("file is %d bytes, more than the %d a scenario file may have", len(data), MaxFileSize),
			"split it into several files")
		return nil, p.errs
	}
	docs, ok := p.documents(data)
	if !ok {
		return nil, p.errs.sorted()
	}
	names := map[string]int{}
	for _, doc := range docs {
		sc := p.scenario(doc)
		if sc == nil {
			continue
		}
		if first, dup := names[sc.Name]; dup {
			p.errAt(sc.Line, 0, fmt.Sprintf("scenario name %q is used twice (first at line %d)", sc.Name, first),
				"give each scenario of a file its own name: it names the runs and their records")
			continue
		}
		names[sc.Name] = sc.Line
		s.Scenarios = append(s.Scenarios, sc)
	}
	if len(p.errs) == 0 {
		s.Runs = p.expand(s)
	}
	if len(p.errs) == 0 {
		p.resolveVerdict(s)
	}
	if len(p.errs) > 0 {
		return nil, p.errs.sorted()
	}
	return s, nil
}

// parser collects every problem of one file.
type parser struct {
	file  string
	known Known
	errs  Errors
}

func (p *parser) errAt(line, col int, msg, hint string) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: col, Msg: msg, Hint: hint})
}

func (p *parser) errNode(n *yaml.Node, msg, hint string) { p.errAt(n.Line, n.Column, msg, hint) }

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// documents splits data into its YAML documents; a syntax error stops the parse.
func (p *parser) documents(data []byte) ([]*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			msg := err.Error()
			line := 0
			if m := yamlLine.FindStringSubmatch(msg); m != nil {
				line, _ = strconv.Atoi(m[1])
				msg = m[2]
			}
			p.errAt(line, 0, "not valid YAML: "+strings.TrimPrefix(msg, "yaml: "),
				"indent with spaces, put a space after each ':' and quote values holding ': ' or '#'")
			return nil, false
		}
		if len(docs) == MaxScenarios {
			p.errAt(n.Line, 0, fmt.Sprintf("more than %d scenarios in one file", MaxScenarios), "split the file")
			return nil, false
		}
		if r := resolve(&n); r == nil || (r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null" && r.Value == "") ||
			(n.Kind == yaml.DocumentNode && len(n.Content) == 0) {
			continue // an empty document, e.g. after a trailing "---"
		}
		docs = append(docs, &n)
	}
	if len(docs) == 0 {
		p.errAt(0, 0, "no scenario in the file",
			"a scenario needs at least: name: my-suite, workload: hello, impls: [go-hello]")
		return nil, false
	}
	return docs, true
}

// resolve follows aliases (anchors are defined before use, so there are no cycles; the bound is
// for safety).
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return resolve(n.Content[0])
	}
	return n
}

// topKeys are a scenario's keys with what each holds, for the unknown-key hint.
var topKeys = []string{"name", "workload", "impls", "params", "repeats", "warmup", "duration", "services", "full", "seed", "cpus", "verdict"}

// fullKeys are the keys a scenario's full: block may override: the seed's own sizes (and the
// impls the short default leaves out to keep within its time).
var fullKeys = []string{"params", "repeats", "warmup", "duration", "impls"}

// scenario validates one document; nil when it has errors (already recorded).
func (p *parser) scenario(doc *yaml.Node) *Scenario {
	root := resolve(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		line := doc.Line
		if root != nil {
			line = root.Line
		}
		p.errAt(line, 0, "a scenario must be a mapping of keys, not "+kindName(root),
			"write name: ..., workload: ..., impls: [...] on separate lines")
		return nil
	}
	before := len(p.errs)
	sc := &Scenario{File: p.file, Line: root.Line, Repeats: DefaultRepeats}
	fields := p.sized(p.fields(root, "scenario", topKeys))
	if n := fields["name"]; n == nil {
		p.errAt(root.Line, root.Column, "scenario has no name", "add name: followed by a short id such as hello-pair")
	} else if s, ok := p.str(n, "name"); ok {
		if !validName.MatchString(s) {
			p.errNode(n, fmt.Sprintf("name %q has characters a file name should not", s),
				"use letters, digits, '.', '_' and '-' (it names the runs' records), starting with a letter or digit")
		}
		sc.Name = s
	}
	var spec WorkloadSpec
	var haveSpec bool
	if n := fields["workload"]; n == nil {
		p.errAt(root.Line, root.Column, "scenario has no workload", suggest("workloads", "", keys(p.known.Workloads)))
	} else if s, ok := p.str(n, "workload"); ok {
		sc.Workload = s
		if spec, haveSpec = p.known.Workloads[s]; !haveSpec {
			p.errNode(n, fmt.Sprintf("unknown workload %q", s), suggest("workloads", s, keys(p.known.Workloads)))
		}
	}
	if haveSpec {
		sc.Impls = p.impls(fields["impls"], root, sc.Workload, spec)
		sc.Params = p.params(fields["params"], root, sc.Workload, spec)
		sc.Services = p.services(fields["services"], sc.Workload, spec)
		p.timing(sc, fields, spec)
		sc.Seed = p.seed(fields["seed"], sc, spec)
		if fields["verdict"] != nil {
			sc.Verdict = p.verdict(fields["verdict"], sc, spec)
		}
	}
	sc.CPUs = p.cpus(fields["cpus"])
	if n := fields["repeats"]; n != nil {
		if v, ok := p.value(n, "repeats", ParamSpec{Type: Int}); ok {
			sc.Repeats = int(v.(int64))
			if sc.Repeats < 1 || sc.Repeats > MaxRepeats {
				p.errNode(n, fmt.Sprintf("repeats must be between 1 and %d, got %d", MaxRepeats, v), "3 or 5 show the spread; 1 for a smoke test")
			}
		}
	}
	if len(p.errs) > before {
		return nil
	}
	return sc
}

// sized applies the scenario's full: block when the parser runs the full sizes (Known.Full):
// its params override the scenario's one by one, its other keys replace theirs. Without Full the
// block's keys and parameter names are checked, its values only with --full.
func (p *parser) sized(fields map[string]*yaml.Node) map[string]*yaml.Node {
	n := fields["full"]
	if n == nil {
		return fields
	}
	delete(fields, "full")
	r := resolve(n)
	if r == nil || r.Kind != yaml.MappingNode {
		p.errNode(n, "full must be a mapping", "e.g. full: {duration: 30s, repeats: 3, params: {n: 100000}}")
		return fields
	}
	over := p.fields(r, "full", fullKeys)
	if !p.known.Full {
		return fields
	}
	for k, v := range over {
		if k == "params" && fields[k] != nil {
			v = mergeMappings(resolve(fields[k]), resolve(v))
		}
		fields[k] = v
	}
	return fields
}

// mergeMappings returns base with the entries of over added, replacing those of the same key.
func mergeMappings(base, over *yaml.Node) *yaml.Node {
	if base == nil || base.Kind != yaml.MappingNode || over == nil || over.Kind != yaml.MappingNode {
		return over
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: base.Tag, Line: base.Line, Column: base.Column}
	replaced := map[string]bool{}
	for i := 0; i+1 < len(over.Content); i += 2 {
		replaced[over.Content[i].Value] = true
	}
	for i := 0; i+1 < len(base.Content); i += 2 {
		if !replaced[base.Content[i].Value] {
			out.Content = append(out.Content, base.Content[i], base.Content[i+1])
		}
	}
	out.Content = append(out.Content, over.Content...)
	return out
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// pair is one key and value of a mapping.
type pair struct{ k, v *yaml.Node }

// pairs returns a mapping's entries in file order, reporting keys that are not plain names and
// keys given twice (the first one stays).
func (p *parser) pairs(m *yaml.Node, what string) []pair {
	var out []pair
	lines := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), m.Content[i+1]
		if k == nil || k.Kind != yaml.ScalarNode {
			p.errNode(m.Content[i], "a key must be a plain name", "")
			continue
		}
		if first, dup := lines[k.Value]; dup {
			p.errNode(k, fmt.Sprintf("%s key %q given twice (first at line %d)", what, k.Value, first), "keep one")
			continue
		}
		lines[k.Value] = k.Line
		out = append(out, pair{k, v})
	}
	return out
}

// fields returns a mapping's values by key, reporting unknown and repeated keys.
func (p *parser) fields(m *yaml.Node, what string, allowed []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range p.pairs(m, what) {
		if !contains(allowed, kv.k.Value) {
			p.errNode(kv.k, fmt.Sprintf("unknown %s key %q", what, kv.k.Value), suggest("keys", kv.k.Value, allowed))
			continue
		}
		out[kv.k.Value] = kv.v
	}
	return out
}

// shape is what a mapping of a scenario must look like: its allowed keys, those it needs, and an
// example of it for the hints.
type shape struct {
	what     string // "seed row", "claim", ...
	example  string
	keys     []string
	required []string
	hint     string // what to do when a required key is missing
}

// mapping returns the fields of n, a mapping of sh's keys, reporting a node that is not a mapping,
// unknown or repeated keys and each required key missing; nil when n is not a mapping.
func (p *parser) mapping(n *yaml.Node, sh shape) (*yaml.Node, map[string]*yaml.Node) {
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode {
		p.errNode(n, "a "+sh.what+" must be a mapping", "e.g. "+sh.example)
		return nil, nil
	}
	f := p.fields(m, sh.what, sh.keys)
	for _, k := range sh.required {
		if f[k] == nil {
			p.errNode(m, sh.what+" has no "+k, sh.hint)
		}
	}
	return m, f
}

// str reads a scalar string.
func (p *parser) str(n *yaml.Node, what string) (string, bool) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() == "!!null" || r.Value == "" {
		p.errNode(n, fmt.Sprintf("%s must be a single word, not %s", what, kindName(r)), "")
		return "", false
	}
	return r.Value, true
}

func (p *parser) impls(n, root *yaml.Node, workload string, spec WorkloadSpec) []string {
	if n == nil {
		if spec.Impls != nil {
			p.errAt(root.Line, root.Column, "scenario has no impls", suggest("impls of "+workload, "", spec.Impls))
		}
		return nil
	}
	items := p.list(n)
	if len(items) == 0 {
		p.errNode(n, "impls is empty", suggest("impls of "+workload, "", spec.Impls))
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		s, ok := p.str(it, "an impl")
		if !ok {
			continue
		}
		switch {
		case seen[s]:
			p.errNode(it, fmt.Sprintf("impl %q listed twice", s), "list each impl once; repeats: sets how often each runs")
		case spec.Impls != nil && !contains(spec.Impls, s):
			p.errNode(it, fmt.Sprintf("unknown impl %q for workload %s", s, workload), suggest("impls of "+workload, s, spec.Impls))
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// list returns a sequence's items, or the node itself as a list of one.
func (p *parser) list(n *yaml.Node) []*yaml.Node {
	r := resolve(n)
	if r != nil && r.Kind == yaml.SequenceNode {
		return r.Content
	}
	return []*yaml.Node{n}
}

func (p *parser) params(n, root *yaml.Node, workload string, spec WorkloadSpec) []Param {
	var out []Param
	set := map[string]bool{}
	if n != nil {
		m := resolve(n)
		if m == nil || m.Kind != yaml.MappingNode {
			p.errNode(n, "params must be a mapping of name: value", "e.g. params: {connections: 100}")
			return nil
		}
		for _, kv := range p.pairs(m, "params") {
			ps, ok := spec.Params[kv.k.Value]
			if !ok {
				p.errNode(kv.k, fmt.Sprintf("unknown parameter %q for workload %s", kv.k.Value, workload),
					suggest("parameters", kv.k.Value, keys(spec.Params)))
				continue
			}
			set[kv.k.Value] = true
			if prm, ok := p.param(kv.k, kv.v, ps); ok {
				out = append(out, prm)
			}
		}
	}
	for _, name := range keys(spec.Params) {
		if spec.Params[name].Required && !set[name] {
			at := root
			if n != nil {
				at = n
			}
			p.errNode(at, fmt.Sprintf("workload %s needs parameter %s", workload, name),
				fmt.Sprintf("add params: {%s: %s}", name, spec.Params[name].Type.example()))
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func kindName(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "this"
}
