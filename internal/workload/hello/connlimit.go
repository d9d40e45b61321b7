package hello

import "github.com/iobench/iobench/internal/result"

// ConnLimitKey is the record key of a hello run's connection-limit probe (ConnLimit).
const ConnLimitKey = "connection_limit"

func init() { result.RegisterSection(ConnLimitKey, func() any { return new(ConnLimit) }) }

// ConnLimit is what a server did with connections held open at once after a run, for a variant
// that expects a per-client connection limit (seed 4's Aerys): how many were opened, answered,
// turned away (refused, or closed or reset before any response) or failed otherwise. It is a
// hello record's section under ConnLimitKey.
type ConnLimit struct {
	Opened     int    `json:"opened"`
	Answered   int    `json:"answered"`
	TurnedAway int    `json:"turned_away"`
	Failed     int    `json:"failed"`
	FirstError string `json:"first_error,omitempty"`
}

// ConnLimitOf returns rec's connection-limit probe, nil when it has none.
func ConnLimitOf(rec *result.Record) *ConnLimit {
	return result.SectionOf[ConnLimit](rec, ConnLimitKey)
}
