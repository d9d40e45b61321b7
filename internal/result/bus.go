package result

// Bus holds the figures of the bus workload (seed 1); filled by internal/workload/bus.
type Bus struct {
	Profile string `json:"profile"` // seed or durable
	Broker  string `json:"broker"`  // amqp or nats
	DB      string `json:"db"`      // postgres or sqlite
	// Phases are fill, commands and events: the seed's three figures.
	Phases []Phase `json:"phases"`
	// Rows is the number of rows in customers after the run; DuplicateRows those sharing an id.
	Rows          int64 `json:"rows"`
	DuplicateRows int64 `json:"duplicate_rows"`
	// EventsSeen and DuplicateEvents count events handled by the consumer (at-least-once).
	EventsSeen      int64  `json:"events_seen"`
	DuplicateEvents int64  `json:"duplicate_events"`
	Fault           string `json:"fault,omitempty"`
	Verified        bool   `json:"verified"`
}

// Phase is one phase of the bus workload with its peak-second and mean rates.
type Phase struct {
	Name       string   `json:"name"`
	Count      int64    `json:"count"`
	Duration   Duration `json:"duration"`
	Mean       float64  `json:"mean_per_sec"`
	PeakSecond float64  `json:"peak_per_sec"`
}
