package result

// Cachequeue is the cachequeue workload's section (seed 3): what the store counted against what
// iobench saw, filled by internal/workload/cachequeue.
type Cachequeue struct {
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
}
