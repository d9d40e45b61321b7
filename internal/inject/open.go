package inject

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/result"
)

// Open resolves specs against uses, the run's services, for the impl named impl (Resolve), starts
// a relay in front of each, and points vars, the SUT's environment, at them in place; iobench's
// own connections keep their addresses. None: nil. Its errors are bad input, as is an address
// the relay cannot read; on error nothing is left running.
func Open(ctx context.Context, specs []Spec, uses []Use, impl string, vars map[string]string, o Options) (Set, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	targets, err := Resolve(specs, uses, impl)
	if err != nil {
		return nil, err
	}
	set, to, err := StartAll(ctx, targets, vars, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", fail.ErrBadInput, err)
	}
	for k, v := range to {
		vars[k] = v
	}
	return set, nil
}

// RecordRun records what the relays achieved since Mark over ops operations and wall in rec
// (Record), and the injections asked among rec's parameters (Param).
func (s Set) RecordRun(rec *result.Record, ops int64, wall time.Duration, specs []Spec) {
	if len(s) == 0 {
		return
	}
	s.Record(rec, ops, wall)
	if rec.Parameters == nil {
		rec.Parameters = map[string]any{}
	}
	rec.Parameters[Param] = Join(specs)
}

// Join writes specs as the Param value that reads them back: Spec.String, joined by ";".
func Join(specs []Spec) string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.String()
	}
	return strings.Join(out, ";")
}
