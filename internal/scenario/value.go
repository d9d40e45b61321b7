package scenario

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// param reads one parameter: a value, or a list of values for a matrix.
func (p *parser) param(k, n *yaml.Node, ps ParamSpec) (Param, bool) {
	prm := Param{Name: k.Value, Line: k.Line}
	what := "parameter " + k.Value
	if ps.Type == Strings {
		v, ok := p.texts(n, what, ps)
		prm.Values = []any{v}
		return prm, ok
	}
	items := p.list(n)
	if r := resolve(n); r != nil && r.Kind == yaml.SequenceNode && len(items) == 0 {
		p.errNode(n, what+" is an empty list", "give one value, or a list of values to run each of them")
		return prm, false
	}
	ok := true
	seen := map[string]int{}
	for _, it := range items {
		v, good := p.value(it, what, ps)
		if !good {
			ok = false
			continue
		}
		key := format(v)
		if first, dup := seen[key]; dup {
			p.errNode(it, fmt.Sprintf("%s lists %s twice (first at line %d)", what, key, first), "list each value once; repeats: sets how often each runs")
			ok = false
			continue
		}
		seen[key] = it.Line
		prm.Values = append(prm.Values, v)
	}
	return prm, ok
}

// texts reads a Strings parameter: every item a text, checked one by one, the list one value.
func (p *parser) texts(n *yaml.Node, what string, ps ParamSpec) ([]string, bool) {
	items := p.list(n)
	if len(items) == 0 {
		p.errNode(n, what+" is an empty list", "e.g. "+Strings.example())
		return nil, false
	}
	one := ps
	one.Type = String
	out, ok := []string{}, true
	for _, it := range items {
		v, good := p.value(it, what, one)
		if good {
			out = append(out, v.(string))
		}
		ok = ok && good
	}
	return out, ok
}

// value decodes a scalar as ps.Type says and runs ps's checks.
func (p *parser) value(n *yaml.Node, what string, ps ParamSpec) (any, bool) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() == "!!null" {
		p.errNode(n, fmt.Sprintf("%s must be a %s, not %s", what, ps.Type, kindName(r)),
			fmt.Sprintf("e.g. %s", ps.Type.example()))
		return nil, false
	}
	v, err := decode(r, ps.Type)
	if err == nil && len(ps.Enum) > 0 && !contains(ps.Enum, r.Value) {
		err = fmt.Errorf("%q is not one of %s", r.Value, strings.Join(ps.Enum, ", "))
		if h := suggest("values", r.Value, ps.Enum); strings.HasPrefix(h, "did you mean") {
			err = fmt.Errorf("%w (%s)", err, strings.SplitN(h, "?", 2)[0]+"?")
		}
	}
	if err == nil && ps.Check != nil {
		err = ps.Check(v)
	}
	if err != nil {
		hint := ps.Doc
		if hint != "" {
			hint = what[strings.LastIndex(what, " ")+1:] + ": " + hint
		}
		p.errNode(n, fmt.Sprintf("%s: %v", what, err), hint)
		return nil, false
	}
	return v, true
}

// decode converts a scalar to the Go type of t.
func decode(n *yaml.Node, t ParamType) (any, error) {
	tag := n.ShortTag()
	switch t {
	case String:
		if tag != "!!str" {
			return nil, fmt.Errorf("want text, got %s; quote it: %q", n.Value, n.Value)
		}
		return n.Value, nil
	case Int:
		var v int64
		if tag != "!!int" || n.Decode(&v) != nil {
			return nil, fmt.Errorf("want an integer, got %s", describe(n))
		}
		return v, nil
	case Float:
		var v float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil {
			return nil, fmt.Errorf("want a number, got %s", describe(n))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("want a finite number, got %s", n.Value)
		}
		return v, nil
	case Bool:
		var v bool
		if tag != "!!bool" || n.Decode(&v) != nil {
			return nil, fmt.Errorf("want true or false, got %s", describe(n))
		}
		return v, nil
	case Duration:
		return parseDuration(n)
	case Addr:
		if tag != "!!str" {
			return nil, fmt.Errorf("want host:port or auto, got %s", describe(n))
		}
		return parseAddr(n.Value)
	}
	return nil, fmt.Errorf("parameter of unknown type %v", t)
}

func describe(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!str":
		return fmt.Sprintf("text %q", n.Value)
	case "!!int":
		return "the integer " + n.Value
	case "!!float":
		return "the number " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	}
	return fmt.Sprintf("%q", n.Value)
}

// parseDuration reads a Go duration with a unit ("10s", "1m30s"); a bare number is refused, since
// seconds and milliseconds are both plausible readings.
func parseDuration(n *yaml.Node) (time.Duration, error) {
	if tag := n.ShortTag(); tag == "!!int" || tag == "!!float" {
		return 0, fmt.Errorf("duration %s has no unit; write %ss", n.Value, n.Value)
	}
	if n.ShortTag() != "!!str" {
		return 0, fmt.Errorf("want a duration such as 10s, got %s", describe(n))
	}
	d, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		return 0, fmt.Errorf("cannot read duration %q; write a number with a unit such as 10s, 500ms or 2m", n.Value)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %s is negative", n.Value)
	}
	return d, nil
}

// parseAddr reads "host:port" or "auto" (a free port of 127.0.0.1 at run time); port 0 is auto.
func parseAddr(s string) (string, error) {
	if s == "auto" {
		return s, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("address %q is not host:port; write 127.0.0.1:8080, or auto for a free port", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("address %q: port must be a number from 1 to 65535 (or auto)", s)
	}
	if n == 0 {
		return "auto", nil
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// services reads the services mapping: role -> auto | embedded | local | URL.
func (p *parser) services(n *yaml.Node, workload string, spec WorkloadSpec) map[string]Service {
	if n == nil {
		return nil
	}
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode {
		p.errNode(n, "services must be a mapping of role: auto | embedded | local | URL", "e.g. services: {broker: embedded}")
		return nil
	}
	out := map[string]Service{}
	for _, kv := range p.pairs(m, "services") {
		ss, ok := spec.Services[kv.k.Value]
		if !ok {
			if len(spec.Services) == 0 {
				p.errNode(kv.k, fmt.Sprintf("workload %s uses no services", workload), "remove services:")
			} else {
				p.errNode(kv.k, fmt.Sprintf("unknown service %q for workload %s", kv.k.Value, workload),
					suggest("services", kv.k.Value, keys(spec.Services)))
			}
			continue
		}
		s, ok := p.str(kv.v, "service "+kv.k.Value)
		if !ok {
			continue
		}
		svc, err := parseService(s, ss)
		if err != nil {
			p.errNode(kv.v, fmt.Sprintf("service %s: %v", kv.k.Value, err), serviceHint(kv.k.Value, ss))
			continue
		}
		out[kv.k.Value] = svc
	}
	return out
}

func parseService(s string, ss ServiceSpec) (Service, error) {
	switch s {
	case ServiceAuto, ServiceEmbedded, ServiceLocal:
		return Service{Kind: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || !strings.Contains(s, "://") {
		return Service{}, fmt.Errorf("%q is neither auto, embedded, local nor a URL", s)
	}
	if len(ss.Schemes) > 0 && !contains(ss.Schemes, u.Scheme) {
		return Service{}, fmt.Errorf("URL scheme %q is not one of %s", u.Scheme, strings.Join(ss.Schemes, ", "))
	}
	return Service{Kind: ServiceExternal, URL: s}, nil
}

func serviceHint(role string, ss ServiceSpec) string {
	h := "use auto, embedded, local or a URL"
	if len(ss.Schemes) > 0 {
		h += " (" + strings.Join(ss.Schemes, "://..., ") + "://...)"
	}
	if ss.Doc != "" {
		h += "; " + role + ": " + ss.Doc
	}
	return h
}

// timing reads duration and warmup, which only timed workloads take.
func (p *parser) timing(sc *Scenario, fields map[string]*yaml.Node, spec WorkloadSpec) {
	if !spec.Timed {
		for _, k := range []string{"duration", "warmup"} {
			if n := fields[k]; n != nil {
				p.errNode(n, fmt.Sprintf("workload %s is not timed: it takes no %s", sc.Workload, k),
					"remove it; its parameters say how much work a run does")
			}
		}
		return
	}
	sc.Duration, sc.Warmup = spec.DefaultDuration, spec.DefaultWarmup
	if n := fields["duration"]; n != nil {
		if d, ok := p.value(n, "duration", ParamSpec{Type: Duration}); ok {
			sc.Duration = d.(time.Duration)
			if sc.Duration == 0 {
				p.errNode(n, "duration must be above zero", "e.g. duration: 10s")
			}
		}
	}
	if n := fields["warmup"]; n != nil {
		if d, ok := p.value(n, "warmup", ParamSpec{Type: Duration}); ok {
			sc.Warmup = d.(time.Duration)
		}
	}
}

// format writes a typed value as a scenario file would (also the form used in IDs).
func format(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Duration:
		return x.String()
	case []string:
		return strings.Join(x, " ")
	}
	return fmt.Sprint(v)
}
