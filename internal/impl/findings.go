package impl

import (
	"fmt"
	"slices"
	"sort"
)

// Finding is a flaw of a seed that a variant may reproduce on purpose (variants[].expect).
type Finding struct {
	Doc string // what the flaw is, and which seed had it
	// Verify says that `iobench verify` detects the flaw by itself; the others show only under
	// load, as errors of a run.
	Verify bool
	// Errors are the error classes of a run (the generator's: connect, read, length, ...) that
	// the flaw explains; a run of a variant expecting it whose errors are all of these classes
	// reproduced the flaw rather than failed.
	Errors []string
}

// Findings are the seed flaws a manifest may expect, by id.
var Findings = map[string]Finding{
	"content-length-mismatch":   {Doc: "the Content-Length header disagrees with the body's length (seed 4's ReactPHP declares 12 and writes 13 bytes)", Verify: true, Errors: []string{"length"}},
	"no-keepalive":              {Doc: "the server closes the connection after every response (seed 4's ReactPHP 0.6; also a variant that closes on purpose: Connection: close, a sync pre-fork server)", Verify: true},
	"redelivered-duplicate-key": {Doc: "a command redelivered after a crash fails on the primary key: the handler's plain INSERT meets the row it committed before the crash, and the consumer rejects the command (seed 1's symfony/messenger)", Errors: []string{"handler"}},
	"connection-limit":          {Doc: "connections beyond a per-client limit are refused (seed 4's Aerys: connectionsPerIP 30 against 100)", Verify: true, Errors: []string{"connect", "read", "write"}},
}

// FindingIDs returns the ids of Findings, sorted.
func FindingIDs() []string {
	out := make([]string, 0, len(Findings))
	for id := range Findings {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Expects says whether the variant declares the finding id.
func (v Variant) Expects(id string) bool { return slices.Contains(v.Expect, id) }

// Verdict sorts what verify found wrong with one variant.
type Verdict struct {
	Reproduced []RouteProblem // problems that are seed flaws the variant expects
	Failures   []string       // other problems, and expected flaws verify detects but did not see
	Unchecked  []string       // expected flaws that only a loaded run shows
}

// Judge sorts the problems verify found with variant v: a problem that is a finding v expects is
// a seed flaw reproduced, not a failure; an expected finding that verify detects but did not see
// is a failure (the variant does not reproduce what it claims).
func Judge(v Variant, problems []RouteProblem) Verdict {
	var out Verdict
	seen := map[string]bool{}
	for _, p := range problems {
		if p.Finding != "" && v.Expects(p.Finding) {
			out.Reproduced = append(out.Reproduced, p)
			seen[p.Finding] = true
			continue
		}
		out.Failures = append(out.Failures, p.String())
	}
	for _, id := range v.Expect {
		switch {
		case !Findings[id].Verify:
			out.Unchecked = append(out.Unchecked, id)
		case !seen[id]:
			out.Failures = append(out.Failures, fmt.Sprintf("expected seed flaw %s not reproduced: %s", id, Findings[id].Doc))
		}
	}
	return out
}

// Explains reports whether the findings expect explain every error class of errs (counts by
// class), and errs has at least one: the run reproduced the seed's flaws and nothing else.
func Explains(expect []string, errs map[string]int64) bool {
	var explained []string
	for _, id := range expect {
		explained = append(explained, Findings[id].Errors...)
	}
	seen := false
	for class, n := range errs {
		if n == 0 {
			continue
		}
		if !slices.Contains(explained, class) {
			return false
		}
		seen = true
	}
	return seen
}
