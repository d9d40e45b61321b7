package workload

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
)

// Verification is the one check of a record that every reader uses (the summary, the HTML, the
// verdicts, compare, the suite's exit status): the run was not interrupted, it measured
// something, the check the run itself wrote (rec.Verification, a failure the record's other
// fields cannot show) did not fail, and its workload's own check (Workload.Verified) passes on
// the record's counts as they are now. Errors alone, such as a few connection resets, do not fail
// it: they are counted apart, and the figures count successes only.
func Verification(rec *result.Record) result.Verification {
	switch {
	case rec.Interrupted:
		return result.Verification{Why: "interrupted before its end"}
	case rec.Verification != nil && !rec.Verification.OK:
		return *rec.Verification
	case rec.Counts.Attempted == 0 && rec.Counts.Succeeded == 0:
		return result.Verification{Why: "nothing was measured"}
	}
	if w, ok := registry[rec.Workload]; ok && w.Verified != nil {
		if ok, why := w.Verified(rec); !ok {
			return result.Verification{Why: why}
		}
	}
	return result.Verification{OK: true}
}

// Judge returns the verification a run's record carries once the run has ended: Verification,
// or, when the run itself returned runErr, that error as the failed check.
func Judge(rec *result.Record, runErr error) result.Verification {
	v := Verification(rec)
	if runErr != nil && v.OK {
		v = result.Verification{Why: strings.Join(strings.Fields(runErr.Error()), " ")}
	}
	return v
}

// StatusFlaw is the status of a run that failed its check or had errors only by reproducing the
// seed flaws its variant expects (FlawReproduced), as the summary's verified column shows it.
const StatusFlaw = "seed flaw reproduced"

// FlawText is StatusFlaw with the expected findings named: "seed flaw reproduced
// (content-length-mismatch)".
func FlawText(expect []string) string {
	if len(expect) == 0 {
		return StatusFlaw
	}
	return StatusFlaw + " (" + strings.Join(expect, ", ") + ")"
}

// FlawReproduced says whether rec, a run that failed its check or had errors, did so only by
// reproducing the seed flaws its variant expects (rec.Expect): every error class is one those
// flaws explain (impl.Explains, or none at all), and each expected flaw's signature is in the
// record as its workload reads it (Workload.Flaw). A run that was interrupted, or whose workload
// knows no signature, never passes. why says what was missing, or the signatures found.
func FlawReproduced(rec *result.Record) (ok bool, why string) {
	if len(rec.Expect) == 0 || rec.Interrupted {
		return false, "no seed flaw expected"
	}
	if v := rec.Verification; v != nil && !v.OK && ownCheck(rec) {
		return false, "the run itself failed: " + v.Why // a crash or a timeout is never the flaw
	}
	if errs := unexplained(rec); len(errs) > 0 {
		return false, fmt.Sprintf("errors the expected flaws do not explain: %s", strings.Join(errs, ", "))
	}
	w, ok := registry[rec.Workload]
	if !ok || w.Flaw == nil {
		return false, fmt.Sprintf("the %s workload knows no seed flaw's signature", rec.Workload)
	}
	var found []string
	for _, id := range rec.Expect {
		if len(impl.Findings[id].Errors) == 0 {
			continue // a flaw without errors (no-keepalive) explains nothing, and needs none
		}
		ok, why := w.Flaw(rec, id)
		if !ok {
			return false, id + ": " + why
		}
		found = append(found, id+": "+why)
	}
	if len(found) == 0 {
		return false, "none of the expected flaws shows in errors"
	}
	return true, strings.Join(found, "; ")
}

// ownCheck says whether rec passes its workload's own check (Workload.Verified; true without
// one).
func ownCheck(rec *result.Record) bool {
	w, ok := registry[rec.Workload]
	if !ok || w.Verified == nil {
		return true
	}
	ok, _ = w.Verified(rec)
	return ok
}

// unexplained returns the error classes of rec (with their counts) that none of its expected
// flaws explains, sorted.
func unexplained(rec *result.Record) []string {
	var explained, out []string
	for _, id := range rec.Expect {
		explained = append(explained, impl.Findings[id].Errors...)
	}
	for class, n := range rec.Counts.Errors {
		if n > 0 && !slices.Contains(explained, class) {
			out = append(out, fmt.Sprintf("%s %d", class, n))
		}
	}
	slices.Sort(out)
	return out
}
