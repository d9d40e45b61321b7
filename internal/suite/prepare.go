package suite

import (
	"context"
	"errors"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// prepare checks, before any run, what every run needs, in the order the runs come: the local
// servers its scenario asks iobench to start (workload.MissingService), then its impl, installed
// and checked. It returns the runs to skip by id, each with the error that says what to install:
// those whose server is not installed, and those whose impl has a prerequisite missing
// (impl.ErrMissing) or could not be installed (impl.ErrInstall). Each cause is told to OnSkip
// once. Other errors (an impl that is not there) are left to the runs, which fail with them.
func (st *state) prepare(ctx context.Context, s *scenario.Suite) map[string]error {
	skip := map[string]error{}
	told := map[string]bool{}
	tell := func(what string, err error) {
		if !told[err.Error()] && st.opts.OnSkip != nil {
			st.opts.OnSkip(what, err)
		}
		told[err.Error()] = true
	}
	for _, r := range s.Runs {
		if ctx.Err() != nil {
			break
		}
		if err := workload.MissingService(r); err != nil {
			skip[r.ID] = err
			tell("the runs of "+r.Scenario, err)
			continue
		}
		if w, ok := workload.Lookup(r.Workload); !ok || w.AnyImpl {
			continue
		}
		name, _ := impl.ParseRef(r.Impl)
		if _, err := st.install(ctx, name); err != nil && (errors.Is(err, impl.ErrMissing) || errors.Is(err, impl.ErrInstall)) {
			skip[r.ID] = err
			tell("impl "+name, err)
		}
	}
	return skip
}

// verdictOf is the record's copy of a run's verdict, made once per suite.
func (st *state) verdictOf(v *scenario.Verdict) *result.Verdict {
	if v == nil {
		return nil
	}
	if got, ok := st.verdicts[v]; ok {
		return got
	}
	out := &result.Verdict{ID: v.ID, Title: v.Title, Question: v.Question, Setup: v.Setup, Flaw: v.Flaw}
	for _, c := range v.Claims {
		out.Claims = append(out.Claims, result.Claim{Says: c.Says, Figure: c.Figure, Tolerance: c.Tolerance, Of: sideOf(c.Of), Over: sideOf(c.Over)})
	}
	if st.verdicts == nil {
		st.verdicts = map[*scenario.Verdict]*result.Verdict{}
	}
	st.verdicts[v] = out
	return out
}

func sideOf(s scenario.ClaimSide) result.ClaimSide {
	return result.ClaimSide{Label: s.Label(), SeedRow: s.SeedRow, Seed: s.SeedFigure, Runs: s.Runs}
}
