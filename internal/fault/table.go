package fault

import (
	"fmt"
	"io"
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
	switch {
	case e.Recovered != nil:
		return seconds(e.Recovered)
	case e.Recovery == TooShort:
		return "phase too short"
	}
	return NotRecovered
}

// classes writes the failed requests of counts by class, "connect 1, read 20"; "none" for none.
func classes(counts map[string]int64) string {
	failed := map[string]int64{}
	for class, n := range counts {
		if class != "ok" && n > 0 {
			failed[class] = n
		}
	}
	return outcomes(failed)
}

// Text writes a record's faults in its text block, a line each: when it took effect, how long
// until it was over, the requests in flight at it by outcome, the recovery; then the answers
// outside 2xx by status. Nothing without faults.
func Text(w io.Writer, rec *result.Record) {
	s := Section(rec)
	if s == nil {
		return
	}
	for _, e := range s.Faults {
		fmt.Fprintf(w, "  Fault %s at %s (over after %s): in flight %s; %s\n", e.Fault, seconds(&e.At), seconds(&e.Took), outcomes(e.InFlight), e.Recovery)
	}
	if len(s.Statuses) > 0 {
		fmt.Fprintf(w, "  Answers outside 2xx: %s\n", outcomes(s.Statuses))
	}
}

// outcomes writes counts by key, "ok 9, status 113"; "none" for none.
func outcomes(counts map[string]int64) string {
	var parts []string
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
