package result

// Seed is the figure a seed published for the setup a run reproduces, carried in the record so
// that reports put it beside ours (a scenario's seed: block).
type Seed struct {
	Source     string  `json:"source,omitempty"` // the seed's repository and setup
	Label      string  `json:"label"`            // the seed's name for the row
	Throughput float64 `json:"throughput"`       // in the record's throughput unit
	P50        float64 `json:"p50_us,omitempty"` // microseconds; 0 when the seed gave none
	P99        float64 `json:"p99_us,omitempty"`
	Errors     string  `json:"errors,omitempty"` // as the seed reported them
	// Phases are the seed's figures per phase of a workload that has phases (the bus's fill,
	// commands and events), per second.
	Phases map[string]float64 `json:"phases,omitempty"`
}
