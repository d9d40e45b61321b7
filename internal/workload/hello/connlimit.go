package hello

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/result"
)

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

// TurnedAwayMark is the placeholder a seed's flaw text may hold for the connections its runs
// themselves counted as turned away (the records' connection_limit, probed after the load).
const TurnedAwayMark = "{turned_away}"

// turnedAway (Workload.FlawCounts) returns flaw with TurnedAwayMark replaced by what recs
// counted: "40 of 100" (one run, or every run alike, "in each of 3 runs"), "38 to 45 of 100
// (3 runs)", or that no run counted them.
func turnedAway(flaw string, recs []*result.Record) string {
	if !strings.Contains(flaw, TurnedAwayMark) {
		return flaw
	}
	var away []int
	opened := 0
	for _, r := range recs {
		if c := ConnLimitOf(r); c != nil {
			away = append(away, c.TurnedAway)
			opened = max(opened, c.Opened)
		}
	}
	text := "none counted (no run here probed its connections)"
	if len(away) > 0 {
		lo, hi := slices.Min(away), slices.Max(away)
		switch {
		case len(away) == 1:
			text = fmt.Sprintf("%d of %d", lo, opened)
		case lo == hi:
			text = fmt.Sprintf("%d of %d in each of %d runs", lo, opened, len(away))
		default:
			text = fmt.Sprintf("%d to %d of %d (%d runs)", lo, hi, opened, len(away))
		}
	}
	return strings.ReplaceAll(flaw, TurnedAwayMark, text)
}
