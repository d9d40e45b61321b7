package result

// Verdict is what the scenario file of a seed says about the seed (its verdict: block), carried
// by every record of that file so that the report can give the seed a section of its own from
// the records alone: the question, the setup, the flaw in words, and the claims whose verdicts the
// report computes from the records.
type Verdict struct {
	ID       string  `json:"id"` // the report section's anchor, e.g. "seed1"
	Title    string  `json:"title"`
	Question string  `json:"question"`
	Setup    string  `json:"setup,omitempty"`
	Flaw     string  `json:"flaw,omitempty"`
	Claims   []Claim `json:"claims,omitempty"`
}

// Claim is one of the seed's claims: Of's figure over Over's, the seed's ratio from its own
// figures, ours from the runs each side names.
type Claim struct {
	Says   string `json:"says"`
	Figure string `json:"figure"` // throughput, p50, ... or a workload's own (workload.Figure)
	// Tolerance is the factor either way within which our ratio matches the seed's (its size),
	// or, for a claim of no difference, 1; 0 means the report's default.
	Tolerance float64   `json:"tolerance,omitempty"`
	Of        ClaimSide `json:"of"`
	Over      ClaimSide `json:"over"`
}

// ClaimSide is one side of a claim: the runs it stands for (by run_id) and the seed's figure.
type ClaimSide struct {
	Label   string   `json:"label"`    // the impl and parameters, "php-fanout route=/async"
	SeedRow string   `json:"seed_row"` // the seed row's label
	Seed    float64  `json:"seed"`     // the seed row's figure
	Runs    []string `json:"runs"`     // the run ids of the suite this side matches
}
