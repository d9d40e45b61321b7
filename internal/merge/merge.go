package merge

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// records merges the agents' records, in agent order.
func records(recs []*result.Record, command []string) (*result.Record, error) {
	first := recs[0]
	out := &result.Record{
		SchemaVersion: result.SchemaVersion, Workload: first.Workload, Impl: first.Impl, Mode: first.Mode,
		Case: first.Case, Variant: first.Variant, Expect: first.Expect, LoadModel: first.LoadModel,
		Target: first.Target, Command: command, Environment: first.Environment, Seed: first.Seed,
	}
	for _, r := range recs[1:] {
		if r.Target != first.Target || r.LoadModel != first.LoadModel || r.Workload != first.Workload {
			return nil, fmt.Errorf("agent %d/%d loaded %s %s (%s) but agent 0 loaded %s %s (%s): these are not one run",
				r.Agent.Index, r.Agent.Count, r.Workload, r.Target, r.LoadModel, first.Workload, first.Target, first.LoadModel)
		}
	}
	var err error
	if out.Latency, err = histograms(recs, func(r *result.Record) *result.Latency { return r.Latency }); err != nil {
		return nil, err
	}
	if out.Uncorrected, err = histograms(recs, func(r *result.Record) *result.Latency { return r.Uncorrected }); err != nil {
		return nil, err
	}
	if out.ScheduleLag, err = histograms(recs, func(r *result.Record) *result.Latency { return r.ScheduleLag }); err != nil {
		return nil, err
	}
	span(out, recs)
	sumCounts(out, recs)
	out.Series = series(recs, out.StartedAt)
	out.Throughput = throughput(out, recs)
	out.Parameters = parameters(recs)
	out.HTTP2 = http2(recs)
	costs(out, recs)
	out.Merged = shares(recs, out.StartedAt)
	out.Warnings = append(engine.Warnings(out, engine.Usage{Planned: planned(out)}), warnings(out.Merged, recs)...)
	return out, nil
}

// planned is the measured duration the agents were given (-d), as a single generator's warnings
// judge it: 0 for a run of a request count, or one whose duration cannot be read.
func planned(rec *result.Record) time.Duration {
	s, _ := rec.Parameters["duration"].(string)
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d
}

// histograms adds the agents' histograms of one kind exactly; nil when no agent has one.
func histograms(recs []*result.Record, of func(*result.Record) *result.Latency) (*result.Latency, error) {
	var sum *stats.Histogram
	for _, r := range recs {
		l := of(r)
		if l == nil {
			continue
		}
		if sum == nil {
			sum = stats.NewHistogram()
		}
		if l.Count == 0 {
			continue
		}
		if l.Histogram == "" {
			return nil, fmt.Errorf("agent %d/%d's record has percentiles but no histogram: it cannot be merged exactly", r.Agent.Index, r.Agent.Count)
		}
		h, err := stats.Decode(l)
		if err != nil {
			return nil, fmt.Errorf("agent %d/%d's histogram: %v", r.Agent.Index, r.Agent.Count, err)
		}
		sum.Merge(h)
	}
	if sum == nil {
		return nil, nil
	}
	return sum.Summary(), nil
}

// span sets the merged measured phase: from the earliest agent's start to the latest one's end.
func span(out *result.Record, recs []*result.Record) {
	var end time.Time
	for i, r := range recs {
		if i == 0 || r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if e := r.StartedAt.Add(r.Duration.Std()); e.After(end) {
			end = e
		}
		out.Interrupted = out.Interrupted || r.Interrupted
	}
	out.Duration = result.Duration(end.Sub(out.StartedAt))
}

func sumCounts(out *result.Record, recs []*result.Record) {
	c := &out.Counts
	for _, r := range recs {
		a := r.Counts
		c.Attempted += a.Attempted
		c.Succeeded += a.Succeeded
		c.Failed += a.Failed
		c.Late += a.Late
		c.Lost += a.Lost
		c.Duplicated += a.Duplicated
		c.Redelivered += a.Redelivered
		c.BytesRead += a.BytesRead
		addAll(&c.Errors, a.Errors)
		out.Threads = append(out.Threads, r.Threads...)
	}
}

// series aligns the agents' seconds by wall clock: a point belongs to the second (from the merged
// start) nearest its own wall-clock start. Per-second percentiles cannot be added, so the merged
// points have none; the merged histograms have them for the whole run.
func series(recs []*result.Record, origin time.Time) []result.Point {
	byKey := map[int64]*result.Point{}
	for _, r := range recs { // an agent's record comes keyed by wall clock (agent.Spec.Stamp)
		for _, p := range r.Series {
			k := int64(math.Round(float64(p.At-origin.UnixMilli()) / 1000))
			m := byKey[k]
			if m == nil {
				m = &result.Point{Second: int(k) + 1, At: p.At}
				byKey[k] = m
			}
			m.At = min(m.At, p.At)
			m.Span = max(m.Span, p.Span)
			m.Completed += p.Completed
			m.Errors += p.Errors
			addAll(&m.Values, p.Values)
		}
	}
	out := make([]result.Point, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, *byKey[k])
	}
	return out
}

func throughput(out *result.Record, recs []*result.Record) result.Throughput {
	t := result.Throughput{Unit: recs[0].Throughput.Unit}
	for _, r := range recs {
		t.TargetRate += r.Throughput.TargetRate
	}
	if secs := out.Duration.Seconds(); secs > 0 {
		t.Mean = round2(float64(out.Counts.Succeeded) / secs)
		t.BytesPerSec = round2(float64(out.Counts.BytesRead) / secs)
	}
	for _, p := range out.Series {
		if p.Span >= 0.9 {
			t.PeakSecond = max(t.PeakSecond, round2(float64(p.Completed)/p.Span))
		}
	}
	return t
}

// http2 adds up the agents' HTTP/2 sections (frames, resets, retries); the streams asked are
// agent 0's, the cap the lowest any agent met. Nil when no agent ran HTTP/2.
func http2(recs []*result.Record) *result.HTTP2 {
	var out *result.HTTP2
	for _, r := range recs {
		h := r.HTTP2
		if h == nil {
			continue
		}
		if out == nil {
			out = &result.HTTP2{Protocol: h.Protocol, Streams: h.Streams}
		}
		addAll(&out.FramesSent, h.FramesSent)
		addAll(&out.FramesReceived, h.FramesReceived)
		addAll(&out.Resets, h.Resets)
		out.GoAwayRetried += h.GoAwayRetried
		if h.StreamsAllowed > 0 && (out.StreamsAllowed == 0 || h.StreamsAllowed < out.StreamsAllowed) {
			out.StreamsAllowed = h.StreamsAllowed
		}
	}
	return out
}

// parameters are agent 0's, with the counts that were split added up again.
func parameters(recs []*result.Record) map[string]any {
	out := maps.Clone(recs[0].Parameters)
	if out == nil {
		out = map[string]any{}
	}
	delete(out, "agent")
	for _, key := range []string{"connections", "threads", "requests", "rate"} {
		if _, ok := out[key]; !ok {
			continue
		}
		var sum float64
		for _, r := range recs {
			sum += number(r.Parameters[key])
		}
		if key == "rate" {
			out[key] = round2(sum)
		} else {
			out[key] = int64(math.Round(sum))
		}
	}
	out["agents"] = len(recs)
	return out
}

// number reads a JSON number (float64 once decoded) or an int of a record still in memory.
func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return 0
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// addAll adds every value of src to the one of the same key in *dst, making *dst when needed.
func addAll[V int64 | float64](dst *map[string]V, src map[string]V) {
	for k, v := range src {
		if *dst == nil {
			*dst = map[string]V{}
		}
		(*dst)[k] += v
	}
}
