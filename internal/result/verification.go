package result

// Verification is whether a run's own check proved its figures, as the record's workload decides
// it (workload.Verification): the store's counts, the upstream's calls, the rows and events, the
// broker's counts. The suite writes it into every record it saves, so that a later reader sees
// a failed check that the record's other fields cannot show (an impl that exited during the
// run, a timeout); readers still check the record's own counts, which an edit cannot hide.
type Verification struct {
	OK  bool   `json:"ok"`
	Why string `json:"why,omitempty"` // what failed, in one line; empty when OK
}

// ConnLimit is what a server did with connections held open at once after a run, for a variant
// that expects a per-client connection limit (seed 4's Aerys): how many were opened, answered,
// turned away (refused, or closed or reset before any response) or failed otherwise.
type ConnLimit struct {
	Opened     int    `json:"opened"`
	Answered   int    `json:"answered"`
	TurnedAway int    `json:"turned_away"`
	Failed     int    `json:"failed"`
	FirstError string `json:"first_error,omitempty"`
}
