package inject

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/relay"
	"github.com/iobench/iobench/internal/suggest"
)

// Kinds are the services an injection may name.
var Kinds = []string{"postgres", "rabbitmq", "redis", "memcached", "upstream"}

// Spec is one injection as asked: SERVICE:latency=5ms[,jitter=200us].
type Spec struct {
	Service string // a kind (Kinds) or a role of the workload's (database, broker, ...)
	Latency time.Duration
	Jitter  time.Duration
}

// String returns s as Parse reads it.
func (s Spec) String() string {
	out := fmt.Sprintf("%s:latency=%v", s.Service, s.Latency)
	if s.Jitter > 0 {
		out += fmt.Sprintf(",jitter=%v", s.Jitter)
	}
	return out
}

// Parse reads "SERVICE:latency=5ms[,jitter=200us]"; errors wrap fail.ErrBadInput.
func Parse(s string) (Spec, error) {
	name, opts, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || name == "" {
		return Spec{}, bad(s, "write SERVICE:latency=5ms[,jitter=200us], e.g. postgres:latency=5ms")
	}
	sp := Spec{Service: strings.ToLower(name)}
	seen := map[string]bool{}
	for _, kv := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var at *time.Duration
		switch k = strings.TrimSpace(k); k {
		case "latency":
			at = &sp.Latency
		case "jitter":
			at = &sp.Jitter
		default:
			return Spec{}, bad(s, fmt.Sprintf("unknown setting %q; use latency=5ms and optionally jitter=200us", k))
		}
		if seen[k] {
			return Spec{}, bad(s, k+" given twice")
		}
		seen[k] = true
		d, err := relay.ParseDelay(k, strings.TrimSpace(v))
		if err != nil {
			return Spec{}, bad(s, err.Error())
		}
		*at = d
	}
	if !seen["latency"] {
		return Spec{}, bad(s, "no latency; add latency=5ms (0s keeps the relay in the path with no delay)")
	}
	return sp, nil
}

// ParseAll reads each injection of list; an item may hold several, separated by ";" (a
// scenario's inject: param).
func ParseAll(list []string) ([]Spec, error) {
	var out []Spec
	for _, item := range list {
		for _, s := range strings.Split(item, ";") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			sp, err := Parse(s)
			if err != nil {
				return nil, err
			}
			out = append(out, sp)
		}
	}
	return out, nil
}

// Use is a service a run uses: its role in the workload, its kind (postgres, sqlite, nats, ...)
// and the variable in which the SUT gets its address, "" when the SUT's manifest declares none
// for that kind.
type Use struct {
	Role, Kind, Var string
}

// Target is an injection matched to the service it delays.
type Target struct {
	Spec
	Use
}

// Resolve matches each injection to a service of uses, by kind or by role (an alias), for the
// impl named impl. It refuses, in one line wrapping fail.ErrBadInput: an unknown service, one the
// run does not use, one injected twice, and one the impl's manifest gives no address variable for.
func Resolve(specs []Spec, uses []Use, impl string) ([]Target, error) {
	var out []Target
	for _, sp := range specs {
		u, err := match(sp, uses, impl)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(t Target) bool { return t.Kind == u.Kind }) {
			return nil, bad(sp.String(), u.Kind+" is injected twice; give it once")
		}
		out = append(out, Target{Spec: sp, Use: u})
	}
	return out, nil
}

func match(sp Spec, uses []Use, impl string) (Use, error) {
	var roles []string
	for _, u := range uses {
		roles = append(roles, u.Role)
	}
	if err := known(sp, roles); err != nil {
		return Use{}, err
	}
	i := slices.IndexFunc(uses, func(u Use) bool { return u.Kind == sp.Service || u.Role == sp.Service })
	if i < 0 {
		return Use{}, bad(sp.String(), fmt.Sprintf("this run does not use %s (it uses %s)", sp.Service, describe(uses)))
	}
	u := uses[i]
	switch {
	case !slices.Contains(Kinds, u.Kind):
		return Use{}, bad(sp.String(), fmt.Sprintf("the %s of this run is %s, which has no connection to delay; run it on %s", u.Role, u.Kind, strings.Join(Kinds, ", ")))
	case u.Var == "":
		return Use{}, bad(sp.String(), fmt.Sprintf("%s's manifest gives no address variable for %s; inject into a service it declares", impl, u.Kind))
	}
	return u, nil
}

// CheckNames refuses an injection that names neither a service kind nor one of roles, the
// workload's; a command calls it before it starts any service.
func CheckNames(specs []Spec, roles ...string) error {
	for _, sp := range specs {
		if err := known(sp, roles); err != nil {
			return err
		}
	}
	return nil
}

func known(sp Spec, roles []string) error {
	if slices.Contains(Kinds, sp.Service) || slices.Contains(roles, sp.Service) {
		return nil
	}
	names := append(slices.Clone(Kinds), roles...)
	why := fmt.Sprintf("unknown service %q; ", sp.Service)
	if h := suggest.Hint(sp.Service, names); h != "" {
		why += h + " "
	}
	return bad(sp.String(), why+"use one of "+strings.Join(names, ", "))
}

func describe(uses []Use) string {
	if len(uses) == 0 {
		return "no service the relay can delay"
	}
	var s []string
	for _, u := range uses {
		s = append(s, u.Kind+" as its "+u.Role)
	}
	return strings.Join(s, ", ")
}

func bad(spec, why string) error {
	return fmt.Errorf("%w: --inject %s: %s", fail.ErrBadInput, strings.TrimSpace(spec), why)
}

// Param is the scenario param, and the key among a record's parameters, of the injections of
// every workload that takes them: a string, several joined by ";".
const Param = "inject"

// CheckParam checks a scenario's Param value (scenario.ParamSpec.Check).
func CheckParam(v any) error {
	_, err := FromParams(map[string]any{Param: v})
	return err
}

// FromParams reads the injections of a run's params, none without Param.
func FromParams(p map[string]any) ([]Spec, error) {
	s, _ := p[Param].(string)
	return ParseAll([]string{s})
}
