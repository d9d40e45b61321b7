package fault

import (
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/fail"
)

// Run is what a run offers its faults: the checks of Check.
type Run struct {
	Workload string // names the workload in messages
	// Target names the system under test (IMPL:VARIANT) in messages.
	Target string
	// InProcess says the system under test runs inside iobench's own process: kill-sut would
	// kill iobench.
	InProcess bool
	// Restart lists the services the run uses that iobench can restart; Down those it can cut.
	Restart, Down []string
	// OptedIn says whether the target reconnects after a restart of service (its manifest's
	// restart_SERVICE lists its variant); nil opts every variant in.
	OptedIn func(service string) bool
	// Length is the measured phase (-d), or its expected length with -n; 0 when unknown.
	Length time.Duration
}

// Check refuses, each in one line, a fault the run cannot take: a service it does not use (or
// cannot restart or cut), kill-sut of a system under test inside iobench, a restart for a variant
// that has not opted in, and a down fault longer than the run. Kinds and points were checked by
// Parse.
func Check(specs []Spec, r Run) error {
	for _, s := range specs {
		if err := r.check(s); err != nil {
			return err
		}
	}
	return nil
}

func (r Run) check(s Spec) error {
	switch s.Kind {
	case KillSUT:
		if r.InProcess {
			return fail.BadInput("--fault %s: %s runs inside iobench's own process, which the fault would kill; use an impl that runs as a process of its own", s, r.Target)
		}
	case Restart:
		if !slices.Contains(r.Restart, s.Service) {
			return fail.BadInput("--fault %s: a %s run does not use %s (or iobench cannot restart it); restart one of: %s", s, r.Workload, s.Service, list(r.Restart))
		}
		if r.OptedIn != nil && !r.OptedIn(s.Service) {
			return fail.BadInput("--fault %s: %s does not reconnect after a %s restart (its manifest's restart_%s does not list it); use kill-sut or a variant that opts in", s, r.Target, s.Service, s.Service)
		}
	case Down:
		if !slices.Contains(r.Down, s.Service) {
			return fail.BadInput("--fault %s: a %s run cannot cut %s; cut one of: %s", s, r.Workload, s.Service, list(r.Down))
		}
		if r.Length > 0 && s.Offset(r.Length)+s.For > r.Length {
			return fail.BadInput("--fault %s: %s down from %v runs past the end of the %v run; shorten +D or strike earlier", s, s.Service, s.Offset(r.Length), r.Length)
		}
	}
	return nil
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
