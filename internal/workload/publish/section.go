package publish

import "github.com/iobench/iobench/internal/result"

func init() { result.RegisterSection(Name, func() any { return new(Record) }) }

// Section returns rec's publish section, nil when it has none.
func Section(rec *result.Record) *Record { return result.SectionOf[Record](rec, Name) }

// Record is the publish workload's section of a record (seed 2), under the key "publish".
//
// The record's Throughput is the broker-accepted rate (CountedBy says how it was counted) and its
// Series has one point per second whose Completed is what the broker accepted in that second;
// Values add "client_written", "confirmed", "consumed" (per second) and "queue_depth" (at the
// end of the second).
type Record struct {
	Publishers       int    `json:"publishers"`
	SharedConnection bool   `json:"shared_connection"`
	Persistent       bool   `json:"persistent"`
	Confirm          int    `json:"confirm"` // outstanding confirms per publisher; 0 = no confirms
	Queue            string `json:"queue"`
	QueueDurable     bool   `json:"queue_durable"`
	Body             string `json:"body"`       // binary, seed or seed-min
	BodyBytes        int    `json:"body_bytes"` // size of a body (the first one for JSON bodies)
	Consumers        int    `json:"consumers"`
	Preset           string `json:"preset,omitempty"`  // old records: the built-in publisher's preset, now go-publisher's variants
	Variant          string `json:"variant,omitempty"` // the impl's variant (Python publishers)
	// ConnectAfterGo is set when the impl connected after iobench's "go" (its manifest's
	// connect_after_go): the broker-accepted window and its own timing include its connects.
	ConnectAfterGo bool `json:"connect_after_go,omitempty"`
	// ImprovesOn is the seed-faithful variant this one improves on (its manifest's improves_on).
	ImprovesOn string `json:"improves_on,omitempty"`

	// CountedBy says where the broker-accepted count comes from: "confirms" (broker acks),
	// "queue" (the queue's message count, read from the broker each second) or
	// "queue+consumed" (the queue's count plus what the consumers received).
	CountedBy string `json:"counted_by"`
	// Accepted is what the broker accepted; Written what the client wrote to its sockets.
	Accepted  int64 `json:"accepted"`
	Written   int64 `json:"written"`
	Confirmed int64 `json:"confirmed,omitempty"`
	Nacked    int64 `json:"nacked,omitempty"`
	Consumed  int64 `json:"consumed,omitempty"` // deliveries received by the consumers, duplicates included
	// Broker is the broker-accepted rate: Mean from the first publish to the moment the broker had
	// counted the last message, PeakSecond the best one-second interval.
	Broker Rate `json:"broker_rate"`
	// Client is the client write rate, labelled apart: messages written to the sockets over the
	// time the publishers were writing. It says nothing about what the broker took.
	Client Rate `json:"client_write_rate"`
	// Drain is how long after the last client write the broker took to count the last message.
	Drain result.Duration `json:"drain"`
	// PerPublisher is what each publisher wrote (and had confirmed).
	PerPublisher []PublisherCount `json:"per_publisher,omitempty"`
	// BrokerChecks are settings verified through the broker after the run, e.g.
	// "queue durable: yes (redeclare as non-durable refused)".
	BrokerChecks []string `json:"broker_checks,omitempty"`
	// SelfReported is what an external publisher said about itself, kept for contrast only.
	SelfReported *SelfReport `json:"self_reported,omitempty"`
}

// Rate is a throughput in messages per second.
type Rate struct {
	Mean       float64 `json:"mean"`
	PeakSecond float64 `json:"peak_second"`
}

// PublisherCount is one publisher's share.
type PublisherCount struct {
	Index     int   `json:"index"`
	Written   int64 `json:"written"`
	Confirmed int64 `json:"confirmed,omitempty"`
}

// SelfReport is an external publisher's own account of its run, timed by itself.
type SelfReport struct {
	Sent    int64   `json:"sent"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"`
}
