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
