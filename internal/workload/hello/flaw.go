package hello

import (
	"context"
	"fmt"
	"slices"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
)

// probeLimit returns the check after a run's load of a variant that expects a per-client
// connection limit: as many connections as the run loaded with, held open at once against the
// impl still running, answered or turned away (ConnLimit). Other variants are not probed.
func probeLimit(r scenario.Run) func(ctx context.Context, addr string, rec *result.Record) {
	n, _ := r.Params["connections"].(int64)
	return func(ctx context.Context, addr string, rec *result.Record) {
		if !slices.Contains(rec.Expect, "connection-limit") || n <= 0 {
			return
		}
		c := ProbeConnections(ctx, addr, "/", int(n))
		probe := &ConnLimit{Opened: c.Opened, Answered: c.Answered, TurnedAway: c.TurnedAway, Failed: c.Failed}
		if c.First != nil {
			probe.FirstError = c.First.Error()
		}
		rec.SetSection(ConnLimitKey, probe)
	}
}

// flaw reads the signature of a seed flaw in a hello record (workload.Workload.Flaw):
//   - content-length-mismatch (seed 4's ReactPHP): answers came all through the run, and the
//     flawed ones are body-length errors;
//   - connection-limit (seed 4's Aerys): after the load the server was alive and answered some
//     of the connections held open at once, turned the rest away, and failed none otherwise.
//
// A server that stopped answering, or whose errors came from anything else, is a failure.
func flaw(rec *result.Record, finding string) (bool, string) {
	switch finding {
	case "content-length-mismatch":
		n := rec.Counts.Errors["length"]
		if n == 0 {
			return false, "no body-length error"
		}
		if !answeredToTheEnd(rec) {
			return false, "the server stopped answering before the run's last second"
		}
		return true, fmt.Sprintf("%d responses whose body disagreed with their Content-Length, answered to the run's end", n)
	case "connection-limit":
		c := ConnLimitOf(rec)
		switch {
		case c == nil:
			return false, "no probe of the connections after the run"
		case c.Answered == 0:
			return false, fmt.Sprintf("after the run, none of %d connections held open at once was answered: the server was not alive", c.Opened)
		case c.TurnedAway == 0:
			return false, fmt.Sprintf("after the run, all %d connections held open at once were answered: no limit", c.Opened)
		case c.Failed > 0:
			return false, fmt.Sprintf("after the run, %d of %d connections failed otherwise: %s", c.Failed, c.Opened, c.FirstError)
		}
		return true, fmt.Sprintf("after the run, %d of %d connections held open at once were answered and %d turned away", c.Answered, c.Opened, c.TurnedAway)
	}
	return false, "not a flaw of hello"
}

// answeredToTheEnd says whether the run's last full second had answers (successes or errors of
// a response that arrived); true for a record without a series.
func answeredToTheEnd(rec *result.Record) bool {
	if len(rec.Series) == 0 {
		return true
	}
	last := rec.Series[len(rec.Series)-1]
	if len(rec.Series) > 1 && last.Span < 0.5 {
		last = rec.Series[len(rec.Series)-2]
	}
	return last.Completed+last.Errors > 0
}
