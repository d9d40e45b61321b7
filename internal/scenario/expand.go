package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Run is one measured execution a scenario asks for.
type Run struct {
	// ID is stable (the same file gives the same IDs) and safe as a file name:
	// "<scenario>.<impl>[.<param>-<value>...].r<repeat>", naming only the parameters that vary.
	ID string
	// Variant is the ID without the repeat: the runs of one variant are repeats of each other.
	Variant string
	Index   int // position in Suite.Runs
	Suite   string
	// Scenario is the scenario's name; File and Line where it begins.
	Scenario string
	File     string
	Line     int
	Workload string
	Impl     string
	// Params holds one point of the matrix plus the defaults of the parameters the scenario
	// left out, typed as their ParamSpec says (string, int64, float64, bool, time.Duration).
	Params map[string]any
	// Given are the parameters the scenario set itself, not filled in from their defaults.
	Given    map[string]bool
	Repeat   int // 1-based
	Repeats  int
	Warmup   time.Duration
	Duration time.Duration
	Services map[string]Service
	CPUs     CPUs // the scenario's pinning
	// Varying are "name=value" for the parameters that vary within the scenario, in file order.
	Varying []string
	// Ports are the listen addresses the run needs, one per Addr parameter.
	Ports []Port
	// Seed is the seed's figure this run stands beside (the scenario's seed: block); nil if none.
	Seed *SeedRow
	// Verdict is the seed's question and claims, of the file the run comes from; nil if none.
	Verdict *Verdict
}

// Port is a listen address a run needs.
type Port struct {
	Param string // the Addr parameter that asks for it
	Host  string // "127.0.0.1" for a free port
	Port  int    // 0: any free port, chosen when the run starts
}

// Free says the port is chosen at run time.
func (p Port) Free() bool { return p.Port == 0 }

// String returns host:port, with port 0 for a free port.
func (p Port) String() string { return net.JoinHostPort(p.Host, strconv.Itoa(p.Port)) }

// Label is a short human name: "hello go-hello load=closed #1/3".
func (r Run) Label() string {
	var b strings.Builder
	b.WriteString(r.Scenario)
	if r.Impl != "" {
		b.WriteString(" " + r.Impl)
	}
	for _, kv := range r.Varying {
		b.WriteString(" " + kv)
	}
	fmt.Fprintf(&b, " #%d/%d", r.Repeat, r.Repeats)
	return b.String()
}

func (r Run) variantBase() string {
	base := slug(r.Scenario)
	if r.Impl != "" {
		base += "." + slug(r.Impl)
	}
	return base
}

// Param returns the run's value of a parameter and whether it is set.
func (r Run) Param(name string) (any, bool) {
	v, ok := r.Params[name]
	return v, ok
}

// Peer returns the run of the same scenario, impl and repeat as r whose parameters equal r's,
// except param, which equals value: for an open-loop run, Peer(r, "load", "closed") is the
// closed-loop run whose peak sets its rate. Callers check Peer's Index against r's to know
// whether it has run yet.
func (s *Suite) Peer(r Run, param string, value any) (Run, bool) {
	for _, o := range s.Runs {
		if o.Scenario != r.Scenario || o.Impl != r.Impl || o.Repeat != r.Repeat || !sameValue(o.Params[param], value) {
			continue
		}
		same := len(o.Params) == len(r.Params)
		for k, v := range r.Params {
			if k != param && !sameValue(o.Params[k], v) {
				same = false
			}
		}
		if same {
			return o, true
		}
	}
	return Run{}, false
}

// sameValue reports whether two parameter values are equal; a Strings value ([]string) is not
// comparable with ==.
func sameValue(a, b any) bool {
	if x, ok := a.([]string); ok {
		y, ok := b.([]string)
		return ok && slices.Equal(x, y)
	}
	if _, ok := b.([]string); ok {
		return false
	}
	return a == b
}

// expand turns validated scenarios into runs and checks their ports.
func (p *parser) expand(s *Suite) []Run {
	total := 0
	for _, sc := range s.Scenarios {
		n := sc.Repeats * max(1, len(sc.Impls))
		for _, prm := range sc.Params {
			n *= len(prm.Values)
			if n > MaxRuns {
				break
			}
		}
		total += n
		if total > MaxRuns {
			p.errAt(sc.Line, 0, fmt.Sprintf("the file expands to more than %d runs", MaxRuns),
				"use fewer matrix values or repeats, or split the file")
			return nil
		}
	}
	var runs []Run
	for _, sc := range s.Scenarios {
		runs = append(runs, p.expandOne(s.Name, sc)...)
	}
	uniqueIDs(runs)
	for i := range runs {
		runs[i].Index = i
	}
	p.errs = append(p.errs, portConflicts(runs, p.known)...)
	return runs
}

// expandOne interleaves the repeats: for each repeat, every impl and every point of the matrix.
func (p *parser) expandOne(suite string, sc *Scenario) []Run {
	spec := p.known.Workloads[sc.Workload]
	impls := sc.Impls
	if len(impls) == 0 {
		impls = []string{""}
	}
	points := matrix(sc.Params)
	var runs []Run
	for r := 1; r <= sc.Repeats; r++ {
		for _, impl := range impls {
			for _, pt := range points {
				run := Run{
					Suite: suite, Scenario: sc.Name, File: sc.File, Line: sc.Line,
					Workload: sc.Workload, Impl: impl, Params: map[string]any{}, Given: map[string]bool{},
					Repeat: r, Repeats: sc.Repeats, Warmup: sc.Warmup, Duration: sc.Duration,
					Services: map[string]Service{}, CPUs: sc.CPUs,
				}
				for role, svc := range sc.Services {
					run.Services[role] = svc // each run its own map: a caller may fill in URLs
				}
				for name, ps := range spec.Params {
					if ps.Default != nil {
						run.Params[name] = ps.Default
					}
				}
				var vary []string
				for i, prm := range sc.Params {
					run.Params[prm.Name], run.Given[prm.Name] = pt[i], true
					if len(prm.Values) > 1 {
						vary = append(vary, slug(prm.Name)+"-"+slug(format(pt[i])))
						run.Varying = append(run.Varying, prm.Name+"="+format(pt[i]))
					}
				}
				run.Variant = strings.Join(append([]string{run.variantBase()}, vary...), ".")
				run.ID = fmt.Sprintf("%s.r%d", run.Variant, r)
				run.Ports = ports(run, spec)
				run.Seed = seedFor(sc.Seed, run)
				runs = append(runs, run)
			}
		}
	}
	return runs
}

// matrix returns every combination of the parameters' values, the first parameter varying
// slowest.
func matrix(params []Param) [][]any {
	points := [][]any{{}}
	for _, prm := range params {
		var next [][]any
		for _, pt := range points {
			for _, v := range prm.Values {
				next = append(next, append(append([]any(nil), pt...), v))
			}
		}
		points = next
	}
	return points
}

// slug keeps letters, digits, '_' and '-' and replaces the rest with '_', so an ID is a safe
// file name (dots separate the ID's parts).
func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// uniqueIDs adds a short hash to IDs that slugging made equal (values that differ only in
// characters a file name cannot hold).
func uniqueIDs(runs []Run) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.ID]++
	}
	for i := range runs {
		r := &runs[i]
		if count[r.ID] == 1 {
			continue
		}
		h := sha256.Sum256([]byte(canonical(*r)))
		r.Variant += "-" + hex.EncodeToString(h[:4])
		r.ID = fmt.Sprintf("%s.r%d", r.Variant, r.Repeat)
	}
}

// canonical is a run's variant in full, for hashing.
func canonical(r Run) string {
	names := keys(r.Params)
	parts := []string{r.Scenario, r.Workload, r.Impl}
	for _, n := range names {
		parts = append(parts, n+"="+format(r.Params[n]))
	}
	return strings.Join(parts, "\x00")
}

// ports lists the listen addresses a run needs, one per Addr parameter.
func ports(r Run, spec WorkloadSpec) []Port {
	var out []Port
	for _, name := range keys(spec.Params) {
		if spec.Params[name].Type != Addr {
			continue
		}
		s, _ := r.Params[name].(string)
		port := Port{Param: name, Host: "127.0.0.1"}
		if s != "" && s != "auto" {
			host, ps, _ := net.SplitHostPort(s)
			port.Host = host
			port.Port, _ = strconv.Atoi(ps)
		}
		out = append(out, port)
	}
	return out
}

// claim is one use of a fixed port.
type claim struct {
	owner string // what holds the port: a SUT (workload, impl, SUT parameters, services) or a service
	run   *Run
	what  string
}

// portConflicts finds fixed ports that two different owners would hold: two systems under test
// (a runner interleaving their repeats may keep both up), or a SUT and an external service.
func portConflicts(runs []Run, known Known) Errors {
	var errs Errors
	claims := map[int]claim{}
	reported := map[string]bool{}
	add := func(port int, c claim) {
		first, taken := claims[port]
		if !taken {
			claims[port] = c
			return
		}
		if first.owner == c.owner {
			return
		}
		key := fmt.Sprintf("%d\x00%s\x00%s", port, first.owner, c.owner)
		if reported[key] {
			return
		}
		reported[key] = true
		errs = append(errs, &Error{
			File: c.run.File, Line: c.run.Line,
			Msg: fmt.Sprintf("runs %s and %s would share port %d (%s and %s)", first.run.ID, c.run.ID, port, first.what, c.what),
			Hint: "remove the fixed address (or write auto) to take a free port for each; a runner may keep " +
				"several servers up while it interleaves their repeats",
		})
	}
	for i := range runs {
		r := &runs[i]
		spec := known.Workloads[r.Workload]
		owner := sutOwner(*r, spec)
		for _, pt := range r.Ports {
			if !pt.Free() {
				add(pt.Port, claim{owner: owner + "\x00" + pt.Param, run: r, what: pt.Param + " " + pt.String()})
			}
		}
		for _, role := range keys(r.Services) {
			svc := r.Services[role]
			if port := localPort(svc); port > 0 {
				add(port, claim{owner: "service\x00" + svc.URL, run: r, what: "service " + role + " " + svc.URL})
			}
		}
	}
	return errs
}

// sutOwner names the SUT process a run talks to: the runs with the same owner may share one.
func sutOwner(r Run, spec WorkloadSpec) string {
	parts := []string{r.Suite, r.Scenario, r.Workload, r.Impl}
	for _, n := range keys(r.Params) {
		if spec.Params[n].SUT {
			parts = append(parts, n+"="+format(r.Params[n]))
		}
	}
	roles := keys(r.Services)
	sort.Strings(roles)
	for _, role := range roles {
		parts = append(parts, role+"="+r.Services[role].String())
	}
	return strings.Join(parts, "\x00")
}

// localPort is the port of an external service on this machine, or 0.
func localPort(s Service) int {
	if s.Kind != ServiceExternal {
		return 0
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return 0
	}
	switch u.Hostname() {
	case "127.0.0.1", "localhost", "::1", "":
	default:
		return 0
	}
	port, _ := strconv.Atoi(u.Port())
	return port
}
