package fault

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
)

// TableNote says how to read Table.
const TableNote = "Each fault of each run: when it took effect in the measured phase, how long until its action ended " +
	"(the process ready again, the service back, the relay healed), the requests in flight at it that failed, by class, " +
	"the time from it to the first success, and to the end of the first 1-second window after it at 90% of the " +
	"success rate before it (never under 1 s: a fault that cost nothing reads 1 s)."

// Table is the recovery table of a workload's runs with faults (workload.Workload.Tables): a row
// per fault of each run, per impl.
func Table(groups []workload.TableGroup) workload.Table {
	t := workload.Table{Title: "Recovery after faults", Note: TableNote,
		Head: []string{"impl", "load", "repeat", "fault", "at", "back in", "in flight, failed", "first success", "90% of the rate"},
		Num:  []bool{false, false, true, false, true, true, false, true, true}}
	for _, g := range groups {
		t.ID, t.Title = "faults-"+g.Workload, "Recovery after faults ("+g.Workload+")"
		for i, rec := range g.Records {
			s := Section(rec)
			if s == nil {
				continue
			}
			for _, e := range s.Faults {
				t.Rows = append(t.Rows, []string{g.Label, units.OrNone(g.Load), fmt.Sprint(i + 1), e.Fault,
					seconds(&e.At), seconds(&e.Took), classes(e.InFlight), seconds(e.FirstSuccess), recovered(e)})
			}
		}
	}
	return t
}

func seconds(d *result.Duration) string {
	if d == nil {
		return "never"
	}
	return fmt.Sprintf("%.3f s", d.Std().Round(time.Millisecond).Seconds())
}

func recovered(e Event) string {
	if e.Recovered == nil {
		return NotRecovered
	}
	return seconds(e.Recovered)
}

// classes writes the failed requests of counts by class, "read 20, connect 3"; "none" for none.
func classes(counts map[string]int64) string {
	var parts []string
	for class, n := range counts {
		if class != "ok" && n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", class, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
