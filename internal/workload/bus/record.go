package bus

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
)

// ErrClassHandler is the error class of the commands whose handler failed (reported "f"), as the
// record counts them; impl.Findings' redelivered-duplicate-key explains it.
const ErrClassHandler = "handler"

// Phase names, in the seed's order.
const (
	PhaseFill     = "fill"
	PhaseCommands = "commands"
	PhaseEvents   = "events"
)

// record builds the run's record: what ran, the three phases, the series and the latency.
func (r *run) record(end time.Time, out outcome) *result.Record {
	c := &r.cfg
	env := result.CaptureEnvironment()
	for _, s := range []Service{c.Broker, c.Database} {
		env.SetVersion(s.Name, s.Version)
	}
	ivs := r.obs.intervals()
	series := make([]result.Point, len(ivs))
	for i, iv := range ivs {
		series[i] = iv.point
	}
	snap := r.t.snapshot()
	var readyNS int64
	if !r.readyAt.IsZero() {
		readyNS = r.readyAt.UnixNano()
	}
	phases := []result.Phase{
		phase(PhaseFill, int64(c.N), r.fillEnd.Sub(r.fillStart), ivs),
		phase(PhaseCommands, snap.cmdDistinct, span(readyNS, snap.lastCmd), ivs),
		phase(PhaseEvents, snap.evDistinct, span(snap.firstEv, snap.lastEv), ivs),
	}
	r.bus.Profile, r.bus.Broker, r.bus.DB = c.Profile, r.bkind, r.dkind
	r.bus.Commands = int64(c.N)
	r.bus.Phases = phases
	r.bus.Fault = c.Fault.String()
	r.bus.ConsumerStarts = len(r.suts)
	r.bus.Topology = c.Topology.String()
	rec := &result.Record{
		SchemaVersion: result.SchemaVersion,
		Workload:      "bus",
		Impl:          r.impl(),
		Variant:       c.Variant,
		Expect:        c.Expect,
		Mode:          c.Mode,
		Case:          c.Fault.String(), // a run with a fault is a group of its own
		Target:        service.Redact(c.BrokerURL),
		Parameters: map[string]any{
			"n":           c.N,
			"concurrency": c.Concurrency,
			"prefetch":    c.Prefetch,
			"profile":     c.Profile,
			"broker":      r.bkind,
			"db":          r.dkind,
			"broker_kind": c.Broker.Kind,
			"db_kind":     c.Database.Kind,
			"database":    service.Redact(c.DatabaseURL),
			"fault":       c.Fault.String(),
			"timeout":     c.Timeout.String(),
			"consumer":    strings.Join(r.argv, " "),
		},
		Command:     c.Command,
		Environment: env,
		StartedAt:   r.start,
		Duration:    result.Duration(end.Sub(r.start)),
		Interrupted: out == outcomeInterrupted,
		Throughput:  result.Throughput{Unit: "commands/s", Mean: phases[1].Mean, PeakSecond: phases[1].PeakSecond},
		Latency:     r.t.hist.Summary(),
		Series:      series,
	}
	rec.SetSection(Name, &r.bus)
	rec.SetSection(fault.Key, r.faultSection(snap))
	if phases[1].Duration.Std() > 0 && phases[1].Duration.Std() < shortPhase {
		r.warnings = append(r.warnings, fmt.Sprintf("the command phase lasted only %v; use a larger -n for stable rates", phases[1].Duration.Std().Round(time.Millisecond)))
	}
	return rec
}

// impl names the consumer for the record: its impl's name, or its program's (CommandTarget).
func (r *run) impl() string { return r.cfg.Impl }

// phase is one of the three phases, its peaks read from the series under its name.
func phase(name string, count int64, d time.Duration, ivs []interval) result.Phase {
	p := result.Phase{Name: name, Count: count, Duration: result.Duration(d), PeakSecond: peak(ivs, name),
		PeakChart: peakOver(ivs, name, ChartWindow)}
	if d > 0 {
		p.Mean = round1(float64(count) / d.Seconds())
	}
	return p
}

// span returns the time between two Unix-ns instants, or 0 when either is unknown.
func span(from, to int64) time.Duration {
	if from == 0 || to == 0 || to < from {
		return 0
	}
	return time.Duration(to - from)
}

// account fills the counts and the bus figures from the tally and the table.
func (r *run) account(rec *result.Record, rows, distinct, left int64) {
	snap := r.t.snapshot()
	_, lostEv, _, _ := r.t.missing()
	n := int64(r.cfg.N)
	b := &r.bus
	b.Rows = rows
	b.DuplicateRows = rows - distinct
	b.LostCommands = max(0, n-distinct)
	b.LostEvents = lostEv
	b.CommandsHandled = snap.cmdTotal
	b.DuplicateCommands = snap.cmdTotal - snap.cmdDistinct
	b.EventsSeen = snap.evDistinct
	b.DuplicateEvents = snap.evTotal - snap.evDistinct
	b.RedeliveredCommands = snap.cmdRedelivered
	b.RedeliveredEvents = snap.evRedelivered
	b.BadMessages = snap.bad
	b.FailedCommands = snap.failed
	b.LeftInQueue = left
	b.Verified = rows == n && distinct == n && lostEv == 0 && snap.bad == 0 && snap.failed == 0
	rec.Counts = result.Counts{
		Attempted:   n,
		Succeeded:   min(distinct, n),
		Failed:      b.LostCommands,
		Lost:        b.LostCommands + b.LostEvents,
		Duplicated:  b.DuplicateRows + b.DuplicateEvents,
		Redelivered: b.RedeliveredCommands + b.RedeliveredEvents,
	}
	if snap.failed > 0 {
		rec.Counts.Errors = map[string]int64{ErrClassHandler: snap.failed}
	}
	if snap.unknown > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("the consumer reported %d messages that this run did not send", snap.unknown))
	}
}

// processes records what iobench, the consumer(s), the broker and the database cost.
func (r *run) processes(rec *result.Record, end time.Time, self procstat.Usage, broker, db cost) {
	wall := end.Sub(r.start)
	add := func(name, role string, pid int, u procstat.Usage) {
		rec.Processes = append(rec.Processes, result.NewProcess(name, role, pid, u, wall))
	}
	name := "iobench"
	if r.cfg.Broker.Kind == "embedded" {
		name = "iobench (with embedded " + r.cfg.Broker.Name + ")"
		r.warnings = append(r.warnings, fmt.Sprintf("%s runs inside iobench: its CPU and memory are counted in iobench's", r.cfg.Broker.Name))
	}
	add(name, "generator", os.Getpid(), self)
	var sutUse procstat.Usage
	var pid int
	for _, s := range r.suts {
		u := s.Usage()
		peak := max(sutUse.PeakRSS, u.PeakRSS)
		sutUse = sutUse.Add(u)
		sutUse.PeakRSS = peak
		pid = s.PID()
	}
	sutName := "consumer (" + r.impl() + ")"
	if r.dkind == "sqlite" {
		sutName = "consumer (" + r.impl() + ", with sqlite)"
		r.warnings = append(r.warnings, "sqlite runs inside the consumer: its cost is counted in the consumer's")
	}
	add(sutName, "sut", pid, sutUse)
	if broker.ok {
		add(r.cfg.Broker.Name, "service", broker.root, broker.u)
	}
	if db.ok {
		add(r.cfg.Database.Name, "service", db.root, db.u)
	}
	if p := rec.Processes[0]; p.CPUPercent > busyGenerator {
		r.warnings = append(r.warnings, fmt.Sprintf("iobench itself used %.0f%% of a core; it may have limited the run", p.CPUPercent))
	}
}
