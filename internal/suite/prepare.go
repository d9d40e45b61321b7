package suite

import (
	"context"
	"errors"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// prepare installs and checks every impl the suite's runs name, in the order they first appear,
// before any run, and returns the runs' impl references to skip: those whose impl has a
// prerequisite missing (impl.ErrMissing) or could not be installed (impl.ErrInstall), each with
// the error that says what to install. Other errors (an impl that is not there) are left to
// the runs, which fail with them.
func (st *state) prepare(ctx context.Context, s *scenario.Suite) map[string]error {
	skip := map[string]error{}
	for _, r := range s.Runs {
		if ctx.Err() != nil {
			break
		}
		if w, ok := workload.Lookup(r.Workload); !ok || w.AnyImpl {
			continue
		}
		if _, done := skip[r.Impl]; done {
			continue
		}
		name, _ := impl.ParseRef(r.Impl)
		_, err := st.install(ctx, name)
		if err == nil || !(errors.Is(err, impl.ErrMissing) || errors.Is(err, impl.ErrInstall)) {
			continue
		}
		for _, o := range s.Runs {
			if n, _ := impl.ParseRef(o.Impl); n == name {
				skip[o.Impl] = err
			}
		}
		if st.opts.OnSkip != nil {
			st.opts.OnSkip(name, err)
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
		out.Claims = append(out.Claims, result.Claim{Says: c.Says, Figure: c.Figure, Of: sideOf(c.Of), Over: sideOf(c.Over)})
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
