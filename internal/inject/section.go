package inject

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/iobench/iobench/internal/relay"
	"github.com/iobench/iobench/internal/result"
)

// SectionKey is the record's key of the inject section.
const SectionKey = "inject"

func init() { result.RegisterSection(SectionKey, func() any { return new(Section) }) }

// Section is a record's inject section: what was injected into each service, by kind
// (inject.postgres), and what the relay achieved.
type Section map[string]*Entry

// Entry is one service's injection in a record.
type Entry struct {
	// LatencyUS and JitterUS are what was asked, in microseconds.
	LatencyUS int64 `json:"latency_us"`
	JitterUS  int64 `json:"jitter_us"`
	// AddedUSPerTurn is the latency the relay added per turn, as it measured it: from the read
	// that took the first chunk of a turn to the write that passed it on, both ways.
	AddedUSPerTurn float64 `json:"added_us_per_turn"`
	// Turns are the changes of direction from the SUT to the service while the SUT ran;
	// TurnsPerOp is Turns divided by the run's operations: r, the round trips per operation.
	Turns      int64   `json:"turns"`
	TurnsPerOp float64 `json:"turns_per_op"`
	// Connections is how many connections the SUT opened and used through the relay, from its
	// start (the readiness check's is not one).
	Connections int64 `json:"connections"`
	// PeakInFlight is the most turns the SUT had outstanding at once (asked, not yet answered):
	// k, its workers waiting on the service together (1 for a single sync consumer); 0 in records
	// written before it was measured.
	PeakInFlight int64 `json:"peak_in_flight,omitempty"`
}

// SectionOf returns rec's inject section, nil when it has none.
func SectionOf(rec *result.Record) Section {
	if s := result.SectionOf[Section](rec, SectionKey); s != nil {
		return *s
	}
	return nil
}

// entry is what t's relay achieved over s for ops operations.
func entry(t Target, s relay.Stats, ops int64) *Entry {
	e := &Entry{LatencyUS: t.Latency.Microseconds(), JitterUS: t.Jitter.Microseconds(),
		AddedUSPerTurn: round2(s.AddedPerTurn()), Turns: s.Turns, Connections: s.Conns, PeakInFlight: s.Peak}
	if ops > 0 {
		e.TurnsPerOp = round2(float64(s.Turns) / float64(ops))
	}
	return e
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// Lines are rec's injections in words, one per service, for a run's text: what was asked and
// what the relay achieved; none without an inject section.
func Lines(rec *result.Record) []string {
	sec := SectionOf(rec)
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(sec)) {
		e := sec[kind]
		asked := fmt.Sprintf("%s +%v", kind, time.Duration(e.LatencyUS)*time.Microsecond)
		if e.JitterUS > 0 {
			asked += fmt.Sprintf(" ±%v", time.Duration(e.JitterUS)*time.Microsecond)
		}
		conns := "connections"
		if e.Connections == 1 {
			conns = "connection"
		}
		if e.PeakInFlight > 0 {
			conns += fmt.Sprintf(", at most %d outstanding at once", e.PeakInFlight)
		}
		out = append(out, fmt.Sprintf("injected: %s through iobench's relay: it added %.0f µs per turn; %.2f turns per operation (%d turns, %d %s)",
			asked, e.AddedUSPerTurn, e.TurnsPerOp, e.Turns, e.Connections, conns))
	}
	return out
}
