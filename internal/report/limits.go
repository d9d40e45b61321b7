package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/limit"
	"github.com/iobench/iobench/internal/result"
)

// limitRow is one group's answer to what limited its runs.
type limitRow struct {
	Key   Key
	Limit string
}

// limitRows returns a row per group whose runs measured some process, in the groups' order.
func limitRows(groups []Group) []limitRow {
	var rows []limitRow
	for _, g := range groups {
		if s := groupLimit(g); s != "" {
			rows = append(rows, limitRow{Key: g.Key, Limit: s})
		}
	}
	return rows
}

// groupLimit says what limited a group's runs: the verdict of its first run when every run's
// names the same limit, else how many runs each names; "" when no run measured a process.
func groupLimit(g Group) string {
	var whos []string
	first := map[string]limit.Verdict{}
	count := map[string]int{}
	n := 0
	for _, r := range g.Records {
		if len(r.Processes) == 0 {
			continue
		}
		v := limit.OfRecord(r)
		if _, ok := first[v.Who()]; !ok {
			whos, first[v.Who()] = append(whos, v.Who()), v
		}
		count[v.Who()]++
		n++
	}
	switch {
	case n == 0:
		return ""
	case len(whos) == 1 && n == 1:
		return first[whos[0]].String()
	case len(whos) == 1:
		return fmt.Sprintf("%s — all %d runs alike, figures of the first", first[whos[0]], n)
	}
	parts := make([]string, len(whos))
	for i, w := range whos {
		parts[i] = fmt.Sprintf("%s in %d", w, count[w])
	}
	return fmt.Sprintf("mixed over %d runs: %s (each run's block says how)", n, strings.Join(parts, ", "))
}

// limitNote says how the limit is judged.
var limitNote = fmt.Sprintf("A process limited a run when every busy thread of it (%g%% of a core or more) ran at %g%% of a core "+
	"or more; the CPU did when all cores were %g%% busy or more: by the measured processes, or by the machine's own "+
	"figure where the record has it (\"other processes\" is its part iobench did not measure). A run that saturated "+
	"nothing is near saturation when a process's busy threads or all cores were at %g%% or more; it waited on I/O or "+
	"latency only below that. Figures are over the measured phase, in percent of one core (a thread, a process), but "+
	"how busy the machine's cores were, in percent of them all.",
	limit.BusyThread, limit.SaturatedThread, limit.SaturatedCPU, limit.Near)

func (r limitRow) cells() []string {
	return []string{r.Key.Workload, dash(r.Key.Load()), r.Key.ImplLabel(), dash(r.Key.Mode), r.Limit}
}

// limitSection is the table of what limited each group's runs.
func limitSection(groups []Group) section {
	s := section{ID: "limit", Title: "What limited each run", Note: limitNote,
		Head: []string{"workload", "load", "impl", "mode", "limit"}, Num: make([]bool, 5)}
	for _, r := range limitRows(groups) {
		s.Rows = append(s.Rows, r.cells())
	}
	return s
}

// notTheSUT names what limited a run when its system under test did not (package limit): the
// CPU of saturated processes of other roles (a service, the generator), or the machine's CPU as
// a whole; "" when the system under test was saturated itself, or nothing was.
func notTheSUT(r *result.Record) string {
	v := limit.OfRecord(r)
	var suts, others []string
	for _, p := range r.Processes {
		if p.Role == "sut" {
			suts = append(suts, p.Name)
		}
	}
	for _, p := range v.Saturated {
		if slices.Contains(suts, p.Name) {
			return ""
		}
		others = append(others, p.Name)
	}
	switch {
	case len(others) > 0:
		return strings.Join(others, " and ") + "'s CPU"
	case v.CPU:
		return "the machine's CPU"
	}
	return ""
}
