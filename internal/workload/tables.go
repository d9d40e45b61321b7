package workload

import (
	"sort"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// Table is one of a workload's own tables in the report (the terminal summary, summary.md and
// report.html alike), showing what a seed got wrong from our records where the records have it:
// a title, a note on how to read it, a head and rows of cells. ID anchors it in report.html; Num
// marks the columns holding numbers.
type Table struct {
	ID, Title, Note string
	Head            []string
	Num             []bool
	Rows            [][]string
	Charts          []Chart // drawn under the table in report.html; none for most
}

// Chart is a line chart of a Table: each line's (x, y) points in order, a line's Color an
// index into the report's palette, Dashed for a prediction beside what was measured.
type Chart struct {
	Title, X, Y string
	LogY        bool
	Lines       []ChartLine
}

// ChartLine is one line of a Chart.
type ChartLine struct {
	Label  string
	Color  int
	Dashed bool
	Points [][2]float64
}

// TableGroup is one group of repeats (the report's Group: the same workload, impl, variant, mode,
// load model and case) as a workload's table reads it.
type TableGroup struct {
	Workload string
	Label    string           // the impl as a scenario names it: "go-hello", "python-pika-publisher:single"
	Load     string           // the load model with the case after it: "closed c10 n300"; "" for none
	Records  []*result.Record // every repeat, in the order they started
	P50, P99 stats.Spread     // of the counted repeats' latency p50 and p99, in microseconds
	Seed     *result.Seed     // the seed's figure for this setup, if a record carries one
}

// TableFunc makes one of a workload's tables from the groups of its own runs; a table without
// rows is left out of the report.
type TableFunc func(groups []TableGroup) Table

// Tables returns the registered workloads' tables that have rows, ordered by ID, then by
// workload (so the order does not hang on which workload registered first); each table reads only the groups of its
// own workload, in the order given.
func Tables(groups []TableGroup) []Table {
	byWorkload := map[string][]TableGroup{}
	for _, g := range groups {
		byWorkload[g.Workload] = append(byWorkload[g.Workload], g)
	}
	var out []Table
	for _, name := range Names() {
		gs := byWorkload[name]
		if len(gs) == 0 {
			continue
		}
		for _, table := range registry[name].Tables {
			if t := table(gs); len(t.Rows) > 0 {
				out = append(out, t)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
