package agent

import (
	"os"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// Stamp marks rec as agent s's share of run, asked to start at startAt (zero: not asked), and
// keys its series by wall-clock time.
func (s Spec) Stamp(rec *result.Record, run string, startAt time.Time) {
	host, _ := os.Hostname()
	rec.Agent = &result.Agent{Index: s.Index, Count: s.Count, Run: run, StartAt: startAt, Started: rec.StartedAt, Host: host}
	rec.Parameters["agent"] = s.String()
	KeySeries(rec)
}

// KeySeries sets each point's wall-clock start (Point.At) where it is missing: the measured
// phase's start plus the spans of the points before it.
func KeySeries(rec *result.Record) {
	at := rec.StartedAt
	for i := range rec.Series {
		p := &rec.Series[i]
		if p.At == 0 {
			p.At = at.UnixMilli()
		}
		at = at.Add(time.Duration(p.Span * float64(time.Second)))
	}
}
