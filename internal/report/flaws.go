package report

import (
	"fmt"
	"strings"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// workloadSections are the workloads' own tables (workload.Tables: fanout's overlap, the bus's
// phases beside the seed, the publishers' broker-accepted against client write rates), then the
// web servers' worker pools and the errors by class: each showing what a seed got wrong from our
// records where the records have it.
func workloadSections(groups []Group) []section {
	var out []section
	for _, t := range workload.Tables(tableGroups(groups)) {
		out = append(out, section(t))
	}
	for _, s := range []section{workersSection(groups), errorsSection(groups)} {
		if len(s.Rows) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// tableGroups returns the groups as the workloads' tables read them.
func tableGroups(groups []Group) []workload.TableGroup {
	out := make([]workload.TableGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, workload.TableGroup{Workload: g.Key.Workload, Label: g.Key.ImplLabel(), Load: g.Key.Load(),
			Records: g.Records, P50: g.P50, P99: g.P99, Seed: g.Seed})
	}
	return out
}

const workersNote = "The seed gave no web server setup; ours is recorded with every run: nginx's worker processes " +
	"and PHP-FPM's static pool (pm.max_children), as the first run of each group had them."

// workersSection lists the fixed worker pools of each group's processes (nginx, PHP-FPM), one
// row per group.
func workersSection(groups []Group) section {
	s := section{ID: "workers", Title: "Web server setup (worker pools)", Note: workersNote,
		Head: []string{"impl", "mode", "load", "worker pools"}, Num: []bool{false, false, false, false}}
	for _, g := range groups {
		var pools []string
		for _, p := range g.Records[0].Processes {
			if p.Workers > 0 {
				pools = append(pools, fmt.Sprintf("%s (%s): %d", p.Name, p.Role, p.Workers))
			}
		}
		if len(pools) > 0 {
			s.Rows = append(s.Rows, []string{g.Key.ImplLabel(), dash(g.Key.Mode), dash(g.Key.Load()), strings.Join(pools, "; ")})
		}
	}
	return s
}

const errorsNote = "Every error iobench counted, by class, summed over the repeats: connect, read, write and timeout " +
	"are wrk's socket errors; length is a body longer than its Content-Length, status and expect a wrong answer. " +
	"Successes per second leave flawed responses out; wrk counts them, as the seeds did."

// errorsSection lists the groups whose runs had errors, with their rate as we count it and as
// wrk does.
func errorsSection(groups []Group) section {
	s := section{ID: "errors", Title: "Errors by class", Note: errorsNote,
		Head: []string{"impl", "load", "expected seed flaw", "errors", "successes", "as wrk counts", "status"},
		Num:  []bool{false, false, false, false, true, true, false}}
	for _, g := range groups {
		if len(g.Errors) == 0 {
			continue
		}
		wrk := "–"
		if g.Answered.Median > 0 {
			wrk = RateText(g.Answered.Median, g.Unit)
		}
		s.Rows = append(s.Rows, []string{g.Key.ImplLabel(), dash(g.Key.Load()), dash(strings.Join(g.Expect, ", ")),
			ErrorsText(g.Errors), g.RateText(), wrk, StatusText(g.Status, g.Expect)})
	}
	return s
}

// unclaimed returns the groups whose records belong to no seed's section (no verdict).
func unclaimed(groups []Group) []Group {
	var out []Group
	for _, g := range groups {
		if verdictOf(g.Records) == nil {
			out = append(out, g)
		}
	}
	return out
}

// verdictOf returns the first verdict the records carry.
func verdictOf(recs []*result.Record) *result.Verdict {
	for _, r := range recs {
		if r.Verdict != nil {
			return r.Verdict
		}
	}
	return nil
}
