package merge

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/agent"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// agentRecord makes agent i of n's record of run from its samples, as the engine would: the
// latency histogram, the counts, one point per second from start.
func agentRecord(run string, i, n int, start time.Time, samples []time.Duration) *result.Record {
	h := stats.NewHistogram()
	for _, d := range samples {
		h.Record(d)
	}
	secs := 3
	rec := &result.Record{
		Workload: "http", LoadModel: "closed", Target: "http://127.0.0.1:1/",
		Parameters: map[string]any{"connections": float64(10), "threads": float64(1), "agent": "x"},
		StartedAt:  start, Duration: result.Duration(time.Duration(secs) * time.Second),
		Counts:     result.Counts{Attempted: int64(len(samples)), Succeeded: int64(len(samples))},
		Throughput: result.Throughput{Unit: "req/s", Mean: float64(len(samples)) / float64(secs)},
		Latency:    h.Summary(),
		Agent:      &result.Agent{Index: i, Count: n, Run: run, Started: start, Host: "h"},
		CPUProbe:   float64(1000 + 100*i),
		Processes:  []result.Process{{Name: "iobench-http", Role: "generator", CPUUser: 1, PeakRSS: 1 << 20}},
	}
	for s := 0; s < secs; s++ {
		rec.Series = append(rec.Series, result.Point{Second: s + 1, Span: 1, Completed: int64(len(samples) / secs)})
	}
	agent.KeySeries(rec) // as agent.Spec.Stamp does
	return rec
}

// samples draws n latencies spread over five decades, as a real run's tail is.
func samples(rng *rand.Rand, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(math.Exp(rng.NormFloat64()*1.5+7) * float64(time.Microsecond))
	}
	return out
}

// TestMergeIsExact checks that merging agents' records gives, percentile for percentile, the
// histogram of all their samples recorded in one place.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for _, n := range []int{1, 2, 3, 8} {
		start := time.Unix(1_800_000_000, 0)
		set, whole := NewSet("", n), stats.NewHistogram()
		for i := 0; i < n; i++ {
			s := samples(rng, 1000+rng.IntN(8000))
			for _, d := range s {
				whole.Record(d)
			}
			if err := set.Add(agentRecord("r1", i, n, start.Add(time.Duration(i)*time.Millisecond), s)); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := set.Merge([]string{"iobench", "merge"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := stats.Decode(rec.Latency)
		if err != nil {
			t.Fatal(err)
		}
		if got.Count() != whole.Count() || rec.Counts.Succeeded != whole.Count() {
			t.Fatalf("N=%d: merged %d samples (counts say %d), recorded %d", n, got.Count(), rec.Counts.Succeeded, whole.Count())
		}
		for p := 0.0; p <= 100; p += 0.25 {
			if a, b := got.Quantile(p), whole.Quantile(p); a != b {
				t.Fatalf("N=%d: p%g merged %v, in one place %v", n, p, a, b)
			}
		}
		want := whole.Summary()
		if rec.Latency.Mean != want.Mean || rec.Latency.Max != want.Max || rec.Latency.Min != want.Min || rec.Latency.Stdev != want.Stdev {
			t.Fatalf("N=%d: merged summary %+v, in one place %+v", n, rec.Latency, want)
		}
		if want := float64(1000 + 50*(n-1)); rec.CPUProbe != want {
			t.Fatalf("N=%d: merged cpu_probe_us %v, want the agents' mean %v (one host)", n, rec.CPUProbe, want)
		}
		if len(rec.Series) != 3 || rec.Merged == nil || len(rec.Merged.Agents) != n || rec.Parameters["connections"] != int64(10*n) {
			t.Fatalf("N=%d: series %d points, merged %+v, parameters %v", n, len(rec.Series), rec.Merged, rec.Parameters)
		}
	}
}

// TestSeriesAlignByWallClock checks that agents that began half a second apart add their seconds
// by wall clock, not by their own index.
func TestSeriesAlignByWallClock(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	a := agentRecord("r", 0, 2, start, make([]time.Duration, 300))
	b := agentRecord("r", 1, 2, start.Add(1010*time.Millisecond), make([]time.Duration, 600))
	set := NewSet("", 0)
	for _, r := range []*result.Record{b, a} { // out of order
		if err := set.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := set.Merge(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{100, 300, 300, 200}
	if len(rec.Series) != len(want) {
		t.Fatalf("series %+v, want %d seconds", rec.Series, len(want))
	}
	for i, p := range rec.Series {
		if p.Completed != want[i] || p.Second != i+1 {
			t.Fatalf("second %d: %+v, want %d completed", i+1, p, want[i])
		}
	}
	if rec.Merged.Spread != 1010 || len(rec.Warnings) == 0 {
		t.Fatalf("spread %v ms, warnings %q: want 1010 and a warning", rec.Merged.Spread, rec.Warnings)
	}
}

func TestSetRefuses(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	rec := func(run string, i, n int) *result.Record {
		return agentRecord(run, i, n, start, []time.Duration{time.Millisecond})
	}
	set := NewSet("", 3)
	if err := set.Add(rec("r", 2, 3)); err != nil {
		t.Fatal(err)
	}
	plain := rec("r", 0, 3)
	plain.Agent = nil
	for _, c := range []struct {
		rec  *result.Record
		want error
	}{
		{rec("r", 2, 3), ErrDuplicate},
		{rec("other", 0, 3), ErrOtherRun},
		{rec("r", 0, 4), ErrCount},
		{plain, ErrNotAgent},
	} {
		if err := set.Add(c.rec); !errors.Is(err, c.want) {
			t.Errorf("Add: %v, want %v", err, c.want)
		}
	}
	if _, err := set.Merge(nil); !errors.Is(err, ErrMissing) || err.Error() != `agents missing: agents 0/3, 1/3 of run "r"` {
		t.Fatalf("Merge of 1 of 3: %v", err)
	}
	if set.Len() != 1 {
		t.Fatalf("%d records in after refusals, want 1", set.Len())
	}
}

// TestMergeHTTP2 adds the agents' HTTP/2 frames, resets and retries, and keeps the lowest cap.
func TestMergeHTTP2(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	set := NewSet("", 2)
	for i, allowed := range []int{0, 64} {
		rec := agentRecord("", i, 2, start, []time.Duration{time.Millisecond})
		rec.HTTP2 = &result.HTTP2{Protocol: "h2c", Streams: 100, StreamsAllowed: allowed, GoAwayRetried: int64(i + 1),
			FramesSent: map[string]int64{"headers": 10}, FramesReceived: map[string]int64{"data": 7 + int64(i)}, Resets: map[string]int64{"cancel": 1}}
		if err := set.Add(rec); err != nil {
			t.Fatal(err)
		}
	}
	out, err := set.Merge(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := out.HTTP2
	if h == nil || h.Protocol != "h2c" || h.Streams != 100 || h.StreamsAllowed != 64 || h.GoAwayRetried != 3 ||
		h.FramesSent["headers"] != 20 || h.FramesReceived["data"] != 15 || h.Resets["cancel"] != 2 {
		t.Fatalf("merged http2 %+v", h)
	}
}
