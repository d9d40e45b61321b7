// Package limit says which process limited a run, from the costs its record measured: a process
// whose every busy thread was saturated (more load could not make it go faster), the machine's
// CPU as a whole (nearly all its cores were busy: the measured processes, or others beside them),
// both, near saturation (a process or the cores between Near and the saturated line: more load
// might not have made it go much faster), or nothing (the run waited on I/O or on latency). It
// reads a record only and knows no impl by name.
package limit

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/result"
)

// The thresholds, in percent.
const (
	// BusyThread is the share of one core from which a thread is one its process works on; a
	// thread below it (a garbage collector, a timer, an idle worker) does not hold the process back.
	BusyThread = 20.0
	// SaturatedThread is the share of one core from which a busy thread is saturated: it ran
	// nearly all the time (10 ms clock ticks and the window's edges take a few points off 100).
	SaturatedThread = 85.0
	// SaturatedCPU is the share of all the machine's cores (cores × 100% of one) from which the
	// CPU was saturated: by the measured processes together, or by all the machine's processes.
	// It is SaturatedThread's figure: at a closed loop's peak the cores still idle a few points
	// between wake-ups (go-hello unpinned at 56k req/s: generator 84% + go-hello 89% of 2 cores).
	SaturatedCPU = 85.0
	// Near is the share (of one core for a thread, of all cores for the CPU) from which a run
	// that saturated nothing is said to be near saturation rather than waiting: at 82% of both
	// cores, "the run waited on I/O" would be confidently wrong.
	Near = 75.0
	// shownShare is the share of all cores below which a process is left out of the CPU's list.
	shownShare = 1.0
)

// Verdict is what limited one run.
type Verdict struct {
	Saturated []Process // the processes whose every busy thread was saturated, in the record's order
	Near      []Process // the processes whose every busy thread was at least Near but not all saturated
	CPU       bool      // the machine's cores were at least SaturatedCPU busy
	NearCPU   bool      // the machine's cores were at least Near busy, but not SaturatedCPU
	Busy      float64   // how busy all cores were, in percent of them: the machine's figure, or the measured processes' when higher
	Cores     int       // the machine's cores; 0 when unknown (Busy and CPU are then 0 and false)
	Machine   float64   // the machine's own figure of Busy (every process); 0 when unknown
	Shares    []Share   // each process's share of all cores, largest first, those of at least shownShare; last "other processes"
	MaxThread float64   // the busiest thread of any process, in percent of one core
	MaxOf     string    // the process of that thread
	SUT       bool      // a system under test (a process of role sut) was measured
	Threads   bool      // some process has per-thread figures
	Measured  bool      // the record has process costs
}

// Process is a saturated process: its label and its busy threads, in percent of one core.
type Process struct {
	Name    string
	Threads []float64
}

// Share is one process's share of all the machine's cores, in percent, and the same CPU in
// percent of one core (its cost line's figure).
type Share struct {
	Name    string
	Percent float64 // of all cores: what orders the list and leaves the smallest out
	OfCore  float64 // of one core: what the verdict prints
}

// OfRecord is Of for a record's processes, its machine's cores and how busy they were.
func OfRecord(rec *result.Record) Verdict {
	return Of(rec.Processes, rec.Environment.Cores, rec.MachineCPU)
}

// Of judges the processes of one run on a machine of cores cores (0: unknown, and the CPU as a
// whole is not judged) whose cores were machine percent busy in all (every process's use; 0:
// unknown, and the measured processes' sum stands for it). Each process's figures are already
// over the run's measured wall time.
func Of(procs []result.Process, cores int, machine float64) Verdict {
	v := Verdict{Cores: cores, Machine: machine, Measured: len(procs) > 0}
	var total float64
	for _, p := range procs {
		total += p.CPUPercent
		v.SUT = v.SUT || p.Role == "sut"
		if len(p.HotThreads) > 0 && slices.Max(p.HotThreads) >= v.MaxThread {
			v.Threads, v.MaxThread, v.MaxOf = true, slices.Max(p.HotThreads), label(p)
		}
		if busy, ok := atLeast(p.HotThreads, SaturatedThread); ok {
			v.Saturated = append(v.Saturated, Process{Name: label(p), Threads: busy})
		} else if busy, ok := atLeast(p.HotThreads, Near); ok {
			v.Near = append(v.Near, Process{Name: label(p), Threads: busy})
		}
	}
	if cores > 0 {
		measured := total / float64(cores)
		v.Busy = max(measured, machine)
		v.CPU = v.Busy >= SaturatedCPU
		v.NearCPU = !v.CPU && v.Busy >= Near
		v.Shares = shares(procs, cores)
		if other := machine - measured; other >= shownShare {
			v.Shares = append(v.Shares, Share{Name: "other processes", Percent: other, OfCore: other * float64(cores)})
		}
	}
	return v
}

// atLeast returns the busy threads of a process and whether every one of them ran at least line
// percent of a core (false without a busy thread).
func atLeast(threads []float64, line float64) ([]float64, bool) {
	var busy []float64
	for _, t := range threads {
		if t >= BusyThread {
			busy = append(busy, t)
		}
	}
	ok := len(busy) > 0
	for _, t := range busy {
		ok = ok && t >= line
	}
	return busy, ok
}

// label names a process in a verdict: "generator" for the load generator, else its name.
func label(p result.Process) string {
	if p.Role == "generator" {
		return "generator"
	}
	return p.Name
}

// shares returns each process's share of all cores, largest first, leaving out the smallest.
func shares(procs []result.Process, cores int) []Share {
	var out []Share
	for _, p := range procs {
		if s := p.CPUPercent / float64(cores); s >= shownShare {
			out = append(out, Share{Name: label(p), Percent: s, OfCore: p.CPUPercent})
		}
	}
	slices.SortStableFunc(out, func(a, b Share) int { return cmp.Compare(b.Percent, a.Percent) })
	return out
}

// Who names what limited the run in a few words: "node-hello", "generator, node-hello", "the
// CPU", "node-hello and the CPU", "near saturation: node-hello", "near saturation: the CPU",
// "nothing" or "not known".
func (v Verdict) Who() string {
	switch procs := names(v.Saturated); {
	case procs != "" && v.CPU:
		return procs + " and the CPU"
	case procs != "":
		return procs
	case v.CPU:
		return "the CPU"
	case v.near():
		return "near saturation: " + v.nearWho()
	case v.Threads:
		return "nothing"
	}
	return "not known"
}

// near reports whether nothing saturated but a process or the cores came near it.
func (v Verdict) near() bool {
	return len(v.Saturated) == 0 && !v.CPU && (len(v.Near) > 0 || v.NearCPU)
}

// nearWho names what was near saturation: "node-hello", "the CPU", "node-hello and the CPU".
func (v Verdict) nearWho() string {
	switch procs := names(v.Near); {
	case procs != "" && v.NearCPU:
		return procs + " and the CPU"
	case procs != "":
		return procs
	}
	return "the CPU"
}

// names joins the processes' names: "generator, node-hello".
func names(procs []Process) string {
	var out []string
	for _, p := range procs {
		out = append(out, p.Name)
	}
	return strings.Join(out, ", ")
}

// String says the verdict in one line, with the figures behind it.
func (v Verdict) String() string {
	var procs []string
	for _, p := range v.Saturated {
		procs = append(procs, p.String())
	}
	saturated := strings.Join(procs, "; ")
	switch {
	case !v.Measured:
		return "not known: the record has no process costs"
	case saturated != "" && v.CPU:
		return "both saturated: " + saturated + "; the CPU: " + v.cpu()
	case saturated != "":
		return saturated
	case v.CPU:
		return "the CPU: " + v.cpu()
	case v.near():
		return "near saturation: " + v.nearText()
	case v.Threads && v.MaxThread >= SaturatedThread:
		return fmt.Sprintf("no process saturated in every busy thread (%s's busiest at %s of a core; its other busy ones had room)",
			v.MaxOf, pct(v.MaxThread))
	case v.Threads && !v.SUT:
		return fmt.Sprintf("nothing measured saturated (max thread %s): the run waited on the system under test (not measured), I/O or latency",
			pct(v.MaxThread))
	case v.Threads:
		return fmt.Sprintf("nothing saturated (max thread %s): the run waited on I/O or latency", pct(v.MaxThread))
	case v.Cores > 0 && v.Machine > 0:
		return fmt.Sprintf("not known: the record has no per-thread CPU (%d cores %s busy)", v.Cores, pct(v.Busy))
	case v.Cores > 0:
		return fmt.Sprintf("not known: the record has no per-thread CPU (the measured processes used %s of %d cores)", pct(v.Busy), v.Cores)
	}
	return "not known: the record has neither per-thread CPU nor the machine's cores"
}

// nearText describes what came near saturation, the busiest process named: "node-hello: its one
// busy thread at 79% of a core", "the CPU: 2 cores 82% busy (go-hello 45%, generator 38%); the
// busiest process go-hello", or both joined by "; ".
func (v Verdict) nearText() string {
	var parts []string
	for _, p := range v.Near {
		parts = append(parts, p.String())
	}
	if v.NearCPU {
		parts = append(parts, "the CPU: "+v.cpu())
	}
	return strings.Join(parts, "; ")
}

// cpu describes the machine's CPU: how busy all its cores were, then each process's part in
// percent of one core, as the cost lines give a process's CPU: "2 cores 96% busy (generator 96%
// of a core, node-hello 94%)".
func (v Verdict) cpu() string {
	var parts []string
	for i, s := range v.Shares {
		part := fmt.Sprintf("%s %.0f%%", s.Name, s.OfCore) // rounded, as the cost lines print it
		if i == 0 {
			part += " of a core"
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%d cores %s busy (%s)", v.Cores, pct(v.Busy), strings.Join(parts, ", "))
}

// String describes a saturated process: "node-hello: its one busy thread at 97% of a core".
func (p Process) String() string {
	t := p.Threads
	switch len(t) {
	case 1:
		return fmt.Sprintf("%s: its one busy thread at %s of a core", p.Name, pct(t[0]))
	case 2:
		return fmt.Sprintf("%s: its 2 busy threads at %s and %s of a core", p.Name, pct(t[0]), pct(t[1]))
	}
	return fmt.Sprintf("%s: its %d busy threads at %s–%s of a core", p.Name, len(t), strings.TrimSuffix(pct(slices.Min(t)), "%"), pct(slices.Max(t)))
}

// pct formats a percentage rounded down, so that a figure shown at a threshold has reached it.
func pct(v float64) string { return fmt.Sprintf("%.0f%%", math.Floor(v)) }

// ThreadsText lists a process's busiest threads for a cost line: "97% 2%" (of one core each,
// rounded down as in the verdicts); "" when they were not measured.
func ThreadsText(p result.Process) string {
	var parts []string
	for _, t := range p.HotThreads {
		parts = append(parts, pct(t))
	}
	return strings.Join(parts, " ")
}
