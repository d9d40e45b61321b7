package bus

import (
	"time"

	"github.com/iobench/iobench/internal/result"
)

func init() { result.RegisterSection(Name, func() any { return new(Record) }) }

// Section returns rec's bus section, nil when it has none.
func Section(rec *result.Record) *Record { return result.SectionOf[Record](rec, Name) }

// Record is the bus workload's section of a record (seed 1), under the key "bus".
type Record struct {
	Profile string `json:"profile"` // seed or durable
	Broker  string `json:"broker"`  // amqp or nats
	DB      string `json:"db"`      // postgres or sqlite
	// Commands is the number of commands sent (N).
	Commands int64 `json:"commands"`
	// Phases are fill, commands and events: the seed's three figures.
	Phases []result.Phase `json:"phases"`
	// Rows is the number of rows in customers after the run; DuplicateRows those sharing an id.
	Rows          int64 `json:"rows"`
	DuplicateRows int64 `json:"duplicate_rows"`
	// LostCommands are commands without a row; LostEvents events never handled.
	LostCommands int64 `json:"lost_commands"`
	LostEvents   int64 `json:"lost_events"`
	// CommandsHandled counts every command the consumer committed, redeliveries included;
	// DuplicateCommands the handlings beyond the first (at-least-once after a fault).
	CommandsHandled   int64 `json:"commands_handled"`
	DuplicateCommands int64 `json:"duplicate_commands"`
	// EventsSeen and DuplicateEvents count events handled by the consumer (at-least-once).
	EventsSeen      int64 `json:"events_seen"`
	DuplicateEvents int64 `json:"duplicate_events"`
	// RedeliveredCommands and RedeliveredEvents count deliveries the broker flagged as redelivered.
	RedeliveredCommands int64 `json:"redelivered_commands"`
	RedeliveredEvents   int64 `json:"redelivered_events"`
	// FailedCommands are command deliveries whose handler failed and that the consumer rejected
	// (reported "f"): seed 1's messenger after a crash, a redelivered command on the primary key.
	FailedCommands int64 `json:"failed_commands,omitempty"`
	// BadMessages are messages the consumer could not decode (acked and dropped).
	BadMessages int64 `json:"bad_messages,omitempty"`
	// LeftInQueue are messages still ready in the queues after the consumer stopped (redelivered
	// duplicates it had not taken yet, or what a run that timed out left behind).
	LeftInQueue int64 `json:"left_in_queue,omitempty"`
	// ConsumerStarts is how many consumer processes ran (more than one after kill-sut).
	ConsumerStarts int    `json:"consumer_starts"`
	Fault          string `json:"fault,omitempty"`
	// FaultAtCommands is how many distinct commands had been handled when the fault struck;
	// FaultAt is when, since the run began; FaultRecovery how long the restart took.
	FaultAtCommands int64           `json:"fault_at_commands,omitempty"`
	FaultAt         result.Duration `json:"fault_at,omitzero"`
	FaultRecovery   result.Duration `json:"fault_recovery,omitzero"`
	Verified        bool            `json:"verified"`
	// Topology is where commands and events went, e.g. "fanout exchange messages (key \"\") ->
	// queue messages".
	Topology string `json:"topology,omitempty"`
	// MaxConnections is PostgreSQL's max_connections during the run (above the consumer's pool).
	MaxConnections int64 `json:"max_connections,omitempty"`
}

// ChartWindow is the sampling interval of RabbitMQ's management charts, over which a phase's
// PeakChart (result.Phase) is taken.
const ChartWindow = 5 * time.Second
