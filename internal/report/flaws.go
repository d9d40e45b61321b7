package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// workloadSections are the workloads' own tables, each showing what a seed got wrong from our
// records where the records have it: fanout's overlap, the bus's phases beside the seed, the
// publishers' broker-accepted against client write rates, the web servers' worker pools, and
// the errors by class.
func workloadSections(groups []Group) []section {
	var out []section
	for _, s := range []section{overlapSection(groups), phasesSection(groups), publishRatesSection(groups),
		workersSection(groups), errorsSection(groups)} {
		if len(s.Rows) > 0 {
			out = append(out, s)
		}
	}
	return out
}

const publishRatesNote = "The broker-accepted rate counts at the broker (its confirms, or its queue's count); the " +
	"client write rate is what the publishers wrote to their sockets, the figure a publisher prints about itself " +
	"(for a publisher in a process of its own, which iobench cannot count, the rate it timed and printed). " +
	"Medians over the repeats; a ratio above 1 is what a client-side count overstates."

// publishRatesSection sets each publisher's broker-accepted rate beside its client write rate.
func publishRatesSection(groups []Group) section {
	s := section{ID: "publish-rates", Title: "Broker-accepted vs client write rate (publish)", Note: publishRatesNote,
		Head: []string{"impl", "counted by", "broker-accepted", "client write", "client ÷ broker", "drain after the last write"},
		Num:  []bool{false, false, true, true, true, true}}
	for _, g := range groups {
		var broker, client, drain []float64
		var counted []string
		for _, r := range g.Records {
			if p := r.Publish; p != nil {
				broker = append(broker, p.Broker.Mean)
				if v, ok := workload.Figure(r, "client_write"); ok {
					client = append(client, v)
				}
				drain = append(drain, float64(p.Drain.Std().Microseconds()))
				if !slices.Contains(counted, p.CountedBy) {
					counted = append(counted, p.CountedBy)
				}
			}
		}
		if len(broker) == 0 {
			continue
		}
		b, c := SpreadOf(broker), SpreadOf(client)
		written := "–"
		if c.N > 0 {
			written = RateText(c.Median, "msg/s")
		}
		s.Rows = append(s.Rows, []string{g.Key.ImplLabel(), strings.Join(counted, ", "), RateText(b.Median, "msg/s"),
			written, RatioText(div(c.Median, b.Median)), LatencyText(SpreadOf(drain))})
	}
	return s
}

const workersNote = "The seed gave no web server setup; ours is recorded with every run: nginx's worker processes " +
	"and PHP-FPM's static pool (pm.max_children), as the first run of each group had them."

// workersSection lists the fixed worker pools of each group's processes (nginx, PHP-FPM), one
// row per group.
func workersSection(groups []Group) section {
	s := section{ID: "workers", Title: "Web server setup (worker pools)", Note: workersNote,
		Head: []string{"impl", "mode", "load", "worker pools"}, Num: []bool{false, false, false, false}}
	for _, g := range groups {
		var pools []string
		for _, p := range g.Records[0].Processes {
			if p.Workers > 0 {
				pools = append(pools, fmt.Sprintf("%s (%s): %d", p.Name, p.Role, p.Workers))
			}
		}
		if len(pools) > 0 {
			s.Rows = append(s.Rows, []string{g.Key.ImplLabel(), dash(g.Key.Mode), dash(g.Key.Load()), strings.Join(pools, "; ")})
		}
	}
	return s
}

const errorsNote = "Every error iobench counted, by class, summed over the repeats: connect, read, write and timeout " +
	"are wrk's socket errors; length is a body longer than its Content-Length, status and expect a wrong answer. " +
	"Successes per second leave flawed responses out; wrk counts them, as the seeds did."

// errorsSection lists the groups whose runs had errors, with their rate as we count it and as
// wrk does.
func errorsSection(groups []Group) section {
	s := section{ID: "errors", Title: "Errors by class", Note: errorsNote,
		Head: []string{"impl", "load", "expected seed flaw", "errors", "successes", "as wrk counts", "status"},
		Num:  []bool{false, false, false, false, true, true, false}}
	for _, g := range groups {
		if len(g.Errors) == 0 {
			continue
		}
		wrk := "–"
		if g.Answered.Median > 0 {
			wrk = RateText(g.Answered.Median, g.Unit)
		}
		s.Rows = append(s.Rows, []string{g.Key.ImplLabel(), dash(g.Key.Load()), dash(strings.Join(g.Expect, ", ")),
			ErrorsText(g.Errors), g.RateText(), wrk, StatusText(g.Status, g.Expect)})
	}
	return s
}

// unclaimed returns the groups whose records belong to no seed's section (no verdict).
func unclaimed(groups []Group) []Group {
	var out []Group
	for _, g := range groups {
		if verdictOf(g.Records) == nil {
			out = append(out, g)
		}
	}
	return out
}

// verdictOf returns the first verdict the records carry.
func verdictOf(recs []*result.Record) *result.Verdict {
	for _, r := range recs {
		if r.Verdict != nil {
			return r.Verdict
		}
	}
	return nil
}
