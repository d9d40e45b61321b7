package report

import (
	"fmt"
	"sort"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// Statuses of a run or a group, as the summary's verified column shows them.
const (
	StatusVerified = "yes"
	StatusFailed   = "no"
	StatusFlaw     = workload.StatusFlaw // errors in a run whose variant expects a seed flaw
)

// Status says what a run's verification means: verified; failed; or, for a run of a variant that
// reproduces a seed flaw on purpose (record.Expect) and failed its check or had errors, the flaw
// reproduced, only where the record shows the flaw's own signature (workload.FlawReproduced). A
// verified run with errors the flaw does not explain is verified: its errors are counted apart.
func Status(rec *result.Record) string {
	v := workload.Verification(rec)
	if v.OK && rec.Counts.Failed == 0 {
		return StatusVerified
	}
	if ok, _ := workload.FlawReproduced(rec); ok {
		return StatusFlaw
	}
	if v.OK {
		return StatusVerified
	}
	return StatusFailed
}

// StatusText is Status with the expected findings named: "seed flaw reproduced
// (content-length-mismatch)".
func StatusText(status string, expect []string) string {
	if status == StatusFlaw {
		return workload.FlawText(expect)
	}
	return status
}

// worse returns the worse of two statuses: failed, then flaw reproduced, then verified.
func worse(a, b string) string {
	rank := map[string]int{StatusVerified: 0, StatusFlaw: 1, StatusFailed: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// sutCost returns the CPU seconds and the peak RSS of a run's system under test (every process
// of role sut, summed), and whether the record has any.
func sutCost(rec *result.Record) (cpu float64, peak uint64, ok bool) {
	for _, p := range rec.Processes {
		if p.Role == "sut" {
			cpu += p.CPUUser + p.CPUSystem
			peak += p.PeakRSS
			ok = true
		}
	}
	return cpu, peak, ok
}

// costOf adds a record's SUT cost to its group: CPU microseconds per 1,000 successful
// operations (one sample per repeat) and the highest peak RSS.
func (g *Group) costOf(rec *result.Record, cpuPer1k *[]float64) {
	cpu, peak, ok := sutCost(rec)
	if !ok || rec.Counts.Succeeded == 0 {
		return
	}
	*cpuPer1k = append(*cpuPer1k, cpu*1e6*1000/float64(rec.Counts.Succeeded))
	g.PeakRSS = max(g.PeakRSS, peak)
}

// SideBySide returns the groups of every workload whose runs have a system under test with a
// measured cost, ordered so that the impls of one workload and load model come together.
func SideBySide(groups []Group) []Group {
	withCost := map[string]bool{}
	for _, g := range groups {
		if g.CPUPer1k.N > 0 {
			withCost[g.Key.Workload] = true
		}
	}
	var out []Group
	for _, g := range groups {
		if withCost[g.Key.Workload] {
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Key, out[j].Key
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		return rank(a.LoadModel, "closed", "open") < rank(b.LoadModel, "closed", "open")
	})
	return out
}

// sideBySideNote explains the cost columns of the side-by-side table.
const sideBySideNote = "CPU is the system under test's own (its whole process tree, over the measured phase) " +
	"per 1,000 successful operations, the median of the repeats; memory is its highest peak RSS over the repeats."

// MemoryText formats a peak RSS in MiB, "–" for none.
func MemoryText(n uint64) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// sideRow is one line of the HTML report's side-by-side table.
type sideRow struct {
	Key                                Key
	Color                              string
	Throughput, P99, CPU, Memory, Flaw string
	Why                                string // GroupWhy
	Verified                           bool
}

// sideRows builds the HTML report's side-by-side table.
func sideRows(groups []Group, colors map[Key]int) []sideRow {
	var out []sideRow
	for _, g := range SideBySide(groups) {
		out = append(out, sideRow{Key: g.Key, Color: color(colors[g.Key]), Throughput: g.RateText(),
			P99: LatencyText(g.P99), CPU: LatencyText(g.CPUPer1k), Memory: MemoryText(g.PeakRSS), Verified: g.Verified, Flaw: flawText(g.Status, g.Expect), Why: GroupWhy(g)})
	}
	return out
}

// flawText is the status text of a reproduced seed flaw, "" for any other status.
func flawText(status string, expect []string) string {
	if status != StatusFlaw {
		return ""
	}
	return StatusText(status, expect)
}
