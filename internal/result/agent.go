package result

import "time"

// Agent says which share of a distributed run a record is (iobench http --agent I/N).
type Agent struct {
	Index   int       `json:"index"` // 0-based
	Count   int       `json:"count"`
	Run     string    `json:"run"`                // the run's id: records of one run share it
	StartAt time.Time `json:"start_at,omitempty"` // the instant asked for (--start-at)
	Started time.Time `json:"started"`            // when this agent's measured phase actually began
	Host    string    `json:"host,omitempty"`
}

// AgentShare is one agent's part of a merged record: what it did and what it cost.
type AgentShare struct {
	Agent
	Skew       float64  `json:"skew_ms"` // Started minus the earliest agent's, in milliseconds
	Succeeded  int64    `json:"succeeded"`
	Throughput float64  `json:"throughput"`       // its own mean, req/s
	P99        float64  `json:"p99_us,omitempty"` // its own p99, microseconds
	Process    *Process `json:"process,omitempty"`
	Saturated  bool     `json:"saturated,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// Merged says how a record was merged from agents' records (iobench merge, iobench collect):
// each agent's share and cost beside the whole, and the generators' total cost.
type Merged struct {
	Run      string       `json:"run"`
	Agents   []AgentShare `json:"agents"`
	CPU      float64      `json:"generator_cpu_s"`          // all agents' generator CPU seconds
	PeakRSS  uint64       `json:"generator_peak_rss_bytes"` // the agents' peak RSS, summed
	Spread   float64      `json:"start_spread_ms"`          // latest start minus earliest
	Commands [][]string   `json:"commands,omitempty"`       // each agent's command line
}
