package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// Canonical returns recs in one order, whatever order they were given in, with each run once: a
// record given twice (the same file, or a directory given twice) is one run. Every table, group
// and verdict of a report is built from this order, so that the same records in any order give
// the same report, byte for byte. Records are ordered by their start, then by what they are.
func Canonical(recs []*result.Record) []*result.Record {
	seen := map[string]bool{}
	out := make([]*result.Record, 0, len(recs))
	for _, r := range recs {
		if r == nil {
			continue
		}
		if id := identity(r); !seen[id] {
			seen[id] = true
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *result.Record) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(identity(a), identity(b))
	})
	return out
}

// identity is what makes a run itself: the machine it ran on, when it started, and what it was.
// Two copies of one record share it; two runs never do.
func identity(r *result.Record) string {
	return strings.Join([]string{r.Environment.Hostname, r.StartedAt.UTC().Format(time.RFC3339Nano), r.Workload, r.Impl,
		r.Variant, r.Mode, r.LoadModel, r.Case, runID(r), r.Target}, "\x00")
}

// runID is the id a suite gave a run (its scenario, impl, variant, parameters and repeat), ""
// for a run of a command of its own.
func runID(r *result.Record) string {
	id, _ := r.Parameters["run_id"].(string)
	return id
}

// runName names a run in a sentence: its suite's run id, else its workload and impl and when it
// started.
func runName(r *result.Record) string {
	if id := runID(r); id != "" {
		return id
	}
	return fmt.Sprintf("%s %s at %s", r.Workload, Key{Impl: r.Impl, Variant: r.Variant, Mode: r.Mode}.ImplLabel(),
		r.StartedAt.UTC().Format("15:04:05"))
}

// CheckPool refuses records that must not pool as repeats of one another: those of different
// machines (cores, CPU model) or of different iobench builds (commits), whose figures differ for
// reasons of their own. It names the two that differ.
func CheckPool(recs []*result.Record) error {
	var first *result.Record
	for _, r := range recs {
		if r == nil {
			continue
		}
		if first == nil {
			first = r
			continue
		}
		if a, b := machine(first), machine(r); a != b {
			return fmt.Errorf("the records come from two machines (%s in %s, %s in %s), whose figures must not pool as repeats; report each machine's records apart",
				a, runName(first), b, runName(r))
		}
		if a, b := first.Environment.GitCommit, r.Environment.GitCommit; a != b {
			return fmt.Errorf("the records come from two iobench builds (commit %s in %s, %s in %s), whose figures must not pool as repeats; report each build's records apart, or set them side by side with iobench compare",
				orUnknown(a), runName(first), orUnknown(b), runName(r))
		}
	}
	return nil
}

// machine names a record's machine as far as pooling goes: its cores and CPU model.
func machine(r *result.Record) string {
	return fmt.Sprintf("%d cores %s", r.Environment.Cores, orUnknown(r.Environment.CPUModel))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
