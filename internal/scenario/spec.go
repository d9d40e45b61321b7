package scenario

import (
	"fmt"
	"time"
)

// Known is what a scenario is validated against: the workloads that exist, by id, and which
// sizes to run.
type Known struct {
	Workloads map[string]WorkloadSpec
	// Full applies each scenario's full: block, the seed's own sizes (iobench run --full);
	// otherwise a scenario runs its short default size.
	Full bool
}

// WorkloadSpec describes one workload: the impls that implement it, its parameters and the
// services it uses.
type WorkloadSpec struct {
	// Impls are the impl names a scenario may list. Nil accepts any name (a workload such as
	// http measures whatever server a URL points at, so its impl is only a label).
	Impls []string
	// Params are the parameters a scenario may set, by name.
	Params map[string]ParamSpec
	// Services are the backing services a scenario may configure, by role (e.g. "broker").
	Services map[string]ServiceSpec
	// Timed says the workload measures for a duration after a warm-up; an untimed workload (bus:
	// N commands) refuses the duration and warmup keys.
	Timed bool
	// DefaultDuration and DefaultWarmup apply to a timed workload when a scenario omits them.
	DefaultDuration time.Duration
	DefaultWarmup   time.Duration
	// Phases name the phases a run of the workload measures apart (the bus: fill, commands,
	// events), which a seed row may give figures for; nil for none.
	Phases []string
	// Figures name what a verdict's claim may compare (throughput, p50, ... and the workload's
	// own, workload.Figure); the registry fills them in.
	Figures []string
}

// ParamType is the type of a parameter's value.
type ParamType int

// Parameter types. The Go type of a value in Run.Params follows the type.
const (
	String   ParamType = iota + 1 // string
	Int                           // int64
	Float                         // float64 (an integer in the file is accepted)
	Bool                          // bool
	Duration                      // time.Duration, written with a unit ("10s")
	Addr                          // string "host:port" or "auto" (a free port on 127.0.0.1)
	// Strings is []string: a list of texts that all apply at once (slo: ["p99<20ms",
	// "errors<0.1%"]), one value, not a matrix; a single text is a list of one.
	Strings
)

// String returns the type's name as shown in messages.
func (t ParamType) String() string {
	switch t {
	case String:
		return "string"
	case Int:
		return "integer"
	case Float:
		return "number"
	case Bool:
		return "boolean"
	case Duration:
		return "duration"
	case Addr:
		return "address"
	case Strings:
		return "list of texts"
	}
	return fmt.Sprintf("ParamType(%d)", int(t))
}

// example returns a valid value of the type for hints.
func (t ParamType) example() string {
	switch t {
	case Int:
		return "100"
	case Float:
		return "0.5"
	case Bool:
		return "true"
	case Duration:
		return "10s"
	case Addr:
		return "127.0.0.1:8080 or auto"
	case Strings:
		return `["p99<20ms", "errors<0.1%"]`
	}
	return "text"
}

// ParamSpec describes one parameter of a workload.
type ParamSpec struct {
	Type ParamType
	// Doc is a short description, used in hints.
	Doc string
	// Enum, for a String parameter, lists the allowed values.
	Enum []string
	// Default is the value a run gets when the scenario omits the parameter, of the Go type that
	// Type gives; nil leaves the parameter out of Run.Params (the runner's own default applies).
	Default any
	// Required parameters must be set by every scenario of the workload.
	Required bool
	// SUT marks a parameter that configures the system under test rather than the load (a
	// consumer's mode, say): runs that differ in it need separate SUT processes, and so cannot
	// share a fixed listen port.
	SUT bool
	// Check, when set, validates a decoded value further; its error becomes the message.
	Check func(v any) error
}

// ServiceSpec describes one backing service role of a workload.
type ServiceSpec struct {
	// Doc is a short description, used in hints.
	Doc string
	// Schemes are the URL schemes accepted for an external service, e.g. amqp and nats.
	Schemes []string
}

// Positive is a ParamSpec.Check for Int and Float parameters that must be above zero.
func Positive(v any) error {
	switch n := v.(type) {
	case int64:
		if n <= 0 {
			return fmt.Errorf("must be at least 1, got %d", n)
		}
	case float64:
		if n <= 0 {
			return fmt.Errorf("must be above 0, got %g", n)
		}
	}
	return nil
}

// NonNegative is a ParamSpec.Check for Int and Float parameters that must not be negative.
func NonNegative(v any) error {
	switch n := v.(type) {
	case int64:
		if n < 0 {
			return fmt.Errorf("must not be negative, got %d", n)
		}
	case float64:
		if n < 0 {
			return fmt.Errorf("must not be negative, got %g", n)
		}
	}
	return nil
}

// PositiveDuration is a ParamSpec.Check for Duration parameters that must be above zero.
func PositiveDuration(v any) error {
	if d, ok := v.(time.Duration); ok && d <= 0 {
		return fmt.Errorf("must be above zero")
	}
	return nil
}
