package inject

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// Set is the relays of one run, one per injected service.
type Set []*Proxy

// StartAll starts a relay for each target in front of the service at urls[t.Var] (the value the
// SUT would get in that variable) and returns the SUT's variables pointed at the relays, to
// replace those in urls. iobench's own connections keep urls. On error nothing is left running.
func StartAll(ctx context.Context, targets []Target, urls map[string]string, o Options) (Set, map[string]string, error) {
	var s Set
	vars := map[string]string{}
	for _, t := range targets {
		raw := urls[t.Var]
		up, err := HostPort(raw)
		if err == nil {
			var px *Proxy
			if px, err = Start(ctx, t, up, o); err == nil {
				s = append(s, px)
				vars[t.Var], err = Redirect(raw, px.Addr)
			}
		}
		if err != nil {
			s.Stop()
			return nil, nil, fmt.Errorf("--inject %s: %w", t.Spec, err)
		}
	}
	return s, vars, nil
}

// Mark restarts every relay's counts and CPU account: the SUT has become ready.
func (s Set) Mark() error {
	var errs []error
	for _, px := range s {
		errs = append(errs, px.Mark())
	}
	return errors.Join(errs...)
}

// Record puts what each relay achieved since Mark over ops operations in rec's inject section,
// and its cost over wall among rec's processes (role proxy). A relay that cannot say adds a
// warning instead.
func (s Set) Record(rec *result.Record, ops int64, wall time.Duration) {
	if len(s) == 0 {
		return
	}
	sec := Section{}
	for _, px := range s {
		e, err := px.Entry(ops)
		if err != nil {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("the latency injected into %s was not measured: %v", px.Kind, err))
			continue
		}
		sec[px.Kind] = e
		rec.Processes = append(rec.Processes, px.Process(wall))
	}
	rec.SetSection(SectionKey, &sec)
}

// Stop stops every relay.
func (s Set) Stop() {
	for _, px := range s {
		px.Stop()
	}
}
