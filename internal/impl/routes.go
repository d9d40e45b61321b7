package impl

// RouteProblem is one thing verify's check of an HTTP impl's routes found wrong (each HTTP
// workload checks its own routes: package workload/web and the workload's). Finding names the
// seed flaw it is, when it is one of Findings, so that a variant expecting it can show "seed
// flaw reproduced" (Judge).
type RouteProblem struct {
	Msg     string
	Finding string
}

// String returns the message, with the finding's id in front when there is one.
func (p RouteProblem) String() string {
	if p.Finding != "" {
		return p.Finding + ": " + p.Msg
	}
	return p.Msg
}
