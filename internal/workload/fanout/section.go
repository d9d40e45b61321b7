package fanout

import "github.com/iobench/iobench/internal/result"

func init() { result.RegisterSection(Name, func() any { return new(Record) }) }

// Section returns rec's fanout section, nil when it has none.
func Section(rec *result.Record) *Record { return result.SectionOf[Record](rec, Name) }

// Record is the fanout workload's section of a record (seed 5), under the key "fanout".
//
// Each request to the service's route should make exactly one call to iobench's upstream, which
// answers after UpstreamDelay, and Work of local work: the upstream's own count is checked against
// the responses the service sent, and the service's own handling time (its Server-Timing header)
// against delay + work tells whether call and work overlapped.
type Record struct {
	Route         string          `json:"route"` // /sync, /async or /async-overlap
	UpstreamDelay result.Duration `json:"upstream_delay"`
	Work          result.Duration `json:"work"`

	// UpstreamCalls is what the upstream counted over the whole run (warm-up and drain included);
	// Answered the service's responses over the same span, any status, and Unanswered the
	// requests that got none (they may or may not have reached it). CallsVerified is true when
	// every request made exactly one call: UpstreamCalls == Answered with none unanswered, or
	// within [Answered, Answered+Unanswered] otherwise. Calls says it in words, with the counts.
	UpstreamCalls int64  `json:"upstream_calls"`
	Answered      int64  `json:"answered"`
	Unanswered    int64  `json:"unanswered"`
	CallsVerified bool   `json:"calls_verified"`
	Calls         string `json:"calls"`
	// AnsweredOK are the answers of status 2xx, in a run with faults (fault.go), which counts
	// only them as answered.
	AnsweredOK int64 `json:"answered_2xx,omitempty"`

	// Handling is the service's own handling time from the dur of its Server-Timing metric
	// "app", one sample per counted success of the measured phase, under the run's load;
	// Untimed counts successes without it. HandlingSource says so in words.
	Handling       *result.Latency `json:"handling,omitempty"`
	Untimed        int64           `json:"untimed"`
	HandlingSource string          `json:"handling_source"`
	// Overlap is (UpstreamDelay + Work) / median handling time: about 1 when the call and the
	// work ran one after the other, about 2 for 10 + 10 ms fully overlapped; 0 without timing.
	// Verdict says it in words: "no overlap", "partial overlap" or "overlapped".
	Overlap float64 `json:"overlap_ratio"`
	Verdict string  `json:"verdict"`
	// VsSync sets the run beside its /sync peer of the same suite (throughput, handling time,
	// the medians and the tails apart); empty for /sync runs and without a peer.
	VsSync string `json:"vs_sync,omitempty"`
}
