package cachequeue

import "github.com/iobench/iobench/internal/result"

func init() { result.RegisterSection(Name, func() any { return new(Record) }) }

// Section returns rec's cachequeue section, nil when it has none.
func Section(rec *result.Record) *Record { return result.SectionOf[Record](rec, Name) }

// Record is the cachequeue workload's section of a record (seed 3), under the key "cachequeue":
// what the store counted against what iobench saw.
type Record struct {
	Route string `json:"route"`
	Store string `json:"store"` // what was read: "the counter \"visits\" in Redis DB 1", ...
	// Change is the store's change over the run; Answered the responses over the whole run
	// (warm-up and drain included) and Unanswered the requests that got none. The store counts
	// right when Answered <= Change <= Answered + Unanswered (0 for a fake route).
	Change     int64  `json:"change"`
	Answered   int64  `json:"answered"`
	Unanswered int64  `json:"unanswered"`
	Counted    bool   `json:"counted"`
	Detail     string `json:"detail"` // the check in words, with the counts
	// Consumers says the run asked for the route's consumer; Consumer is the one that ran beside
	// the impl, nil when none did (none asked, or the impl declares none for the route). With
	// one, the store counts right when Change + Consumer.Received lies within those bounds.
	Consumers bool            `json:"consumers,omitempty"`
	Consumer  *ConsumerRecord `json:"consumer,omitempty"`
	// Faults is the count of a run with faults (fault.go): Counted and Detail are then its.
	Faults *FaultAccount `json:"faults,omitempty"`
}

// ConsumerRecord is the impl's consumer of a queue route (its manifest's consumers) that ran
// beside it: what it received and how it kept up, from its progress lines.
type ConsumerRecord struct {
	Command  string `json:"command"`  // e.g. "php zmqserver.php"
	Received int64  `json:"received"` // its "total N" when stopped, what the queue held before the run included
	// DrainRate is the messages it received per second from the end of the warm-up to its last one.
	DrainRate float64 `json:"drain_rate"`
	// LagMessages are the messages sent but not yet received when the load ended; LagSeconds
	// how long after the load's end its last message came (0 when it had kept up).
	LagMessages int64   `json:"lag_messages"`
	LagSeconds  float64 `json:"lag_seconds"`
}
