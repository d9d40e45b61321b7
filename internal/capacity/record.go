package capacity

import (
	"strconv"

	"github.com/iobench/iobench/internal/result"
)

// Key is the capacity section's key in a record.
const Key = "capacity"

func init() { result.RegisterSection(Key, func() any { return new(Record) }) }

// Section returns rec's capacity section, nil when it has none.
func Section(rec *result.Record) *Record { return result.SectionOf[Record](rec, Key) }

// Record is a search's section of the record, under "capacity".
type Record struct {
	// MaxSustainableRate is the answer in req/s: the highest rate that passed and was confirmed
	// (the ceiling when bound is "ceiling"); absent when there is none.
	MaxSustainableRate *float64 `json:"max_sustainable_rate,omitempty"`
	// Bound is what the search ran into: service (the service's knee, or every step down to the
	// floor failed), generator, connections or ceiling; empty when it was interrupted or ran out
	// of steps first.
	Bound string `json:"bound"`
	// Reason says in words what limited the search and what to do, when it is not the answer.
	Reason string   `json:"reason,omitempty"`
	SLO    []string `json:"slo"`
	// Bracket is the highest passing rate and the lowest failing one above it (0: none yet).
	Bracket       Bracket       `json:"bracket"`
	Confirmations Confirmations `json:"confirmations"`
	// NeededConnections is the -c a connection-starved search needed.
	NeededConnections int             `json:"needed_connections,omitempty"`
	Steps             []StepRecord    `json:"steps"`
	Search            Settings        `json:"search"`
	Elapsed           result.Duration `json:"elapsed"`
	Interrupted       bool            `json:"interrupted,omitempty"`
}

// Bracket is where the knee lies: Low passed, High failed.
type Bracket struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Confirmations counts the confirmation runs at the answer and how many passed; Failed counts
// the confirmations that failed and made the search step down.
type Confirmations struct {
	Runs   int `json:"runs"`
	Passed int `json:"passed"`
	Failed int `json:"failed_rounds,omitempty"`
}

// StepRecord is one step as the record keeps it; latencies in microseconds.
type StepRecord struct {
	N           int     `json:"n"`
	Phase       string  `json:"phase"` // climb, down, bisect, retry (more connections), confirm
	Connections int     `json:"connections"`
	TargetRate  float64 `json:"target_rate"`
	Offered     float64 `json:"offered_rate,omitempty"` // Poisson arrivals: what the schedule offered
	Achieved    float64 `json:"achieved_rate"`
	P50         float64 `json:"p50_us"`
	P99         float64 `json:"p99_us"`
	P999        float64 `json:"p99_9_us"`
	Max         float64 `json:"max_us"`
	ServiceP99  float64 `json:"service_p99_us"` // from the send, without the wait to send
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	Verdict     string  `json:"verdict"` // pass, service, generator or connections
	Why         string  `json:"why"`
	// GeneratorCPU is the busiest generator thread's share of a core; RunQueueDelay the mean
	// wait of its threads to run, µs.
	GeneratorCPU  float64 `json:"generator_cpu"`
	RunQueueDelay float64 `json:"run_queue_delay_us"`
	LateSends     int64   `json:"late_sends"`
	ConnWaits     int64   `json:"connection_waits"`
	// BusyConnections is how many connections were in use on average (Little's law on the
	// service's own time).
	BusyConnections float64 `json:"busy_connections,omitempty"`
}

func newStepRecord(n int, phase string, conns int, r StepResult, verdict, why string) StepRecord {
	return StepRecord{
		N: n, Phase: phase, Connections: conns, TargetRate: r.Target, Offered: round(r.Offered, 2), Achieved: round(r.Achieved, 2),
		P50: us(r.Latency.P50), P99: us(r.Latency.P99), P999: us(r.Latency.P999), Max: us(r.Latency.Max),
		ServiceP99: us(r.Service.P99), Requests: r.Requests, Errors: r.Errors, Verdict: verdict, Why: why,
		GeneratorCPU: round(r.GeneratorCPU, 3), RunQueueDelay: us(r.RunQueueDelay), LateSends: r.LateSends, ConnWaits: r.ConnWaits,
		BusyConnections: round(r.BusyConnections(), 1),
	}
}

func us(d interface{ Microseconds() int64 }) float64 { return float64(d.Microseconds()) }

// CSVRows is the section as a table, one row per step (iobench report --format csv).
func (c *Record) CSVRows() (head []string, rows [][]string) {
	head = []string{"n", "phase", "connections", "target_rate", "achieved_rate", "p50_us", "p99_us", "p99_9_us", "max_us",
		"service_p99_us", "requests", "errors", "verdict", "generator_cpu", "run_queue_delay_us", "late_sends", "connection_waits", "busy_connections", "why"}
	for _, s := range c.Steps {
		rows = append(rows, []string{strconv.Itoa(s.N), s.Phase, strconv.Itoa(s.Connections), num(s.TargetRate), num(s.Achieved),
			num(s.P50), num(s.P99), num(s.P999), num(s.Max), num(s.ServiceP99), strconv.FormatInt(s.Requests, 10),
			strconv.FormatInt(s.Errors, 10), s.Verdict, num(s.GeneratorCPU), num(s.RunQueueDelay),
			strconv.FormatInt(s.LateSends, 10), strconv.FormatInt(s.ConnWaits, 10), num(s.BusyConnections), s.Why})
	}
	return head, rows
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
