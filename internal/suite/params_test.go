package suite

import (
	"context"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

func init() {
	workload.Register(workload.Workload{Name: "no-parameters", AnyImpl: true,
		Run: func(context.Context, *workload.Env, scenario.Run) (*result.Record, error) {
			return &result.Record{Workload: "no-parameters", Counts: result.Counts{Attempted: 1, Succeeded: 1}}, nil
		}})
}

// TestRecordWithoutParameters: a workload whose record has no parameters of its own still gets
// the run's id among them.
func TestRecordWithoutParameters(t *testing.T) {
	s := parse(t, "name: p\nworkload: no-parameters\nimpls: [label]\nrepeats: 1\n")
	out := Run(t.Context(), s, options(t))
	if len(out) != 1 || out[0].Record == nil || out[0].Record.Parameters["run_id"] != s.Runs[0].ID {
		t.Fatalf("outcomes %+v", out)
	}
}
