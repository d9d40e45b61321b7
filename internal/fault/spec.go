// Package fault is the one fault mechanism of the request-serving workloads and the bus: the
// --fault SPEC syntax (Parse), the bad-input rules a run checks its faults against (Check), when
// a fault strikes in the measured phase (Spec.Offset, Spec.Count), recovery read from completion
// timestamps (Timeline, Recover) and the record's "faults" section (Record).
package fault

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/units"
)

// Kind is what a fault does.
type Kind string

// The kinds of fault.
const (
	// KillSUT SIGKILLs the system under test's whole process group, then the runner starts it
	// again (for a php_fpm impl: PHP-FPM's master and workers; nginx stays up).
	KillSUT Kind = "kill-sut"
	// Restart stops a service cleanly and starts it again on the same port and data directory.
	Restart Kind = "restart"
	// Down makes the relay in front of a service refuse and cut connections for a while.
	Down Kind = "down"
)

// Param is the scenario parameter that holds a run's faults, several joined by ';'.
const Param = "fault"

// Syntax is the help text of --fault and of the fault parameter.
const Syntax = "kill-sut@P%, restart-SERVICE@P% or down-SERVICE@P%+D (e.g. kill-sut@50%, restart-redis@50%, down-upstream@40%+2s)"

// Spec is one fault and when it strikes: At of the measured phase (a duration, or the requests
// or commands counted), and for Down how long it lasts.
type Spec struct {
	Kind    Kind
	Service string        // the service restarted or cut; "" for KillSUT
	At      float64       // share of the measured phase, in (0, 1)
	For     time.Duration // Down only: how long the service stays down
}

// aliases are old names kept: the bus's restart-broker is RabbitMQ's restart.
var aliases = map[string]string{"broker": "rabbitmq"}

// String returns the fault as Parse reads it, e.g. "restart-redis@50%"; "" for the zero Spec
// (no fault).
func (s Spec) String() string {
	if s.Kind == "" {
		return ""
	}
	name := string(s.Kind)
	if s.Kind != KillSUT {
		name += "-" + s.Service
	}
	out := name + "@" + strconv.FormatFloat(s.At*100, 'f', -1, 64) + "%"
	if s.Kind == Down {
		out += "+" + s.For.String()
	}
	return out
}

// Parse reads one SPEC (Syntax). The point defaults to 50% when "@P%" is left out, as the bus's
// parser always took it; restart-broker is read as restart-rabbitmq.
func Parse(raw string) (Spec, error) {
	s := strings.TrimSpace(raw)
	name, at, hasAt := strings.Cut(s, "@")
	var spec Spec
	switch {
	case name == string(KillSUT):
		spec.Kind = KillSUT
	case strings.HasPrefix(name, "restart-") && len(name) > len("restart-"):
		spec.Kind, spec.Service = Restart, strings.TrimPrefix(name, "restart-")
	case strings.HasPrefix(name, "down-") && len(name) > len("down-"):
		spec.Kind, spec.Service = Down, strings.TrimPrefix(name, "down-")
	default:
		return Spec{}, fail.BadInput("unknown fault %q; give %s", raw, Syntax)
	}
	if a, ok := aliases[spec.Service]; ok {
		spec.Service = a
	}
	spec.At = 0.5
	if !hasAt {
		if spec.Kind == Down {
			return Spec{}, fail.BadInput("fault %q: a down fault needs its point and length, e.g. %s@50%%+2s", raw, name)
		}
		return spec, nil
	}
	point, length, hasLen := strings.Cut(at, "+")
	p, err := strconv.ParseFloat(strings.TrimSuffix(point, "%"), 64)
	if err != nil || !strings.HasSuffix(point, "%") || p <= 0 || p >= 100 {
		return Spec{}, fail.BadInput("fault %q: the point must be a percentage strictly between 0%% and 100%%, e.g. %s@50%%", raw, name)
	}
	spec.At = p / 100
	return withLength(spec, raw, name, length, hasLen)
}

// withLength reads a down fault's length (required) and refuses one on any other kind.
func withLength(spec Spec, raw, name, length string, has bool) (Spec, error) {
	if spec.Kind != Down {
		if has {
			return Spec{}, fail.BadInput("fault %q: only a down fault has a length (+D); drop +%s", raw, length)
		}
		return spec, nil
	}
	d, err := units.ParseDuration(length)
	if !has || err != nil || d <= 0 {
		return Spec{}, fail.BadInput("fault %q: a down fault needs a positive length, e.g. %s@50%%+2s", raw, name)
	}
	spec.For = d
	return spec, nil
}

// ParseAll reads every SPEC of values, each of which may hold several joined by ';' (a scenario's
// fault parameter); empty values are none.
func ParseAll(values []string) ([]Spec, error) {
	items := strings.FieldsFunc(strings.Join(values, ";"), func(r rune) bool { return r == ';' })
	out := make([]Spec, 0, len(items))
	for _, item := range items {
		if strings.TrimSpace(item) == "" {
			continue
		}
		spec, err := Parse(item)
		if err != nil {
			return nil, err
		}
		out = append(out, spec)
	}
	return out, nil
}

// FromParams reads the faults of a run's params (Param), none without it.
func FromParams(p map[string]any) ([]Spec, error) {
	s, _ := p[Param].(string)
	return ParseAll([]string{s})
}

// CheckParam checks a scenario's Param value (scenario.ParamSpec.Check).
func CheckParam(v any) error {
	_, err := FromParams(map[string]any{Param: v})
	return err
}

// Offset is when the fault strikes after the measured phase began, in a phase of length
// measured (the warm-up excluded).
func (s Spec) Offset(measured time.Duration) time.Duration {
	return time.Duration(s.At * float64(measured))
}

// Count is the operation after which the fault strikes in a run of n counted operations (-n):
// at least the first.
func (s Spec) Count(n int64) int64 {
	return max(1, int64(math.Ceil(s.At*float64(n))))
}

// Join returns specs as one scenario value, joined by ';'.
func Join(specs []Spec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ";")
}

// Name returns the fault without its point: "kill-sut", "restart-redis", "down-upstream".
func (s Spec) Name() string {
	if s.Kind == KillSUT {
		return string(KillSUT)
	}
	return fmt.Sprintf("%s-%s", s.Kind, s.Service)
}

// AddFlag adds --fault, repeatable, to fs: each value a SPEC (Syntax), read by ParseAll.
func AddFlag(fs *pflag.FlagSet, values *[]string) {
	fs.StringArrayVar(values, "fault", nil, "inject a fault: "+Syntax+"; repeatable")
}
