package capacity

import (
	"strings"
	"testing"
	"time"
)

// TestParseSLO: the metrics and limits --slo takes, written back the same way, and one line
// saying what is wrong for what it does not take.
func TestParseSLO(t *testing.T) {
	for in, want := range map[string]SLO{
		"p99<20ms":      {Metric: "p99", Limit: 20 * time.Millisecond},
		"p99.9 < 100ms": {Metric: "p99.9", Limit: 100 * time.Millisecond},
		"P50<1.5ms":     {Metric: "p50", Limit: 1500 * time.Microsecond},
		"max<1s":        {Metric: "max", Limit: time.Second},
		"errors<0.1%":   {Metric: "errors", Pct: 0.1},
	} {
		got, err := ParseSLO(in)
		if err != nil || got != want {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := ParseSLO(got.String()); err != nil || back != got {
			t.Errorf("%q written as %q reads back as %+v, %v", in, got.String(), back, err)
		}
	}
	for in, want := range map[string]string{
		"p99":         "write METRIC<LIMIT",
		"p99>20ms":    "write METRIC<LIMIT",
		"p98<20ms":    `"p98" is not a metric; use p50, p99, p99.9, max or errors`,
		"p99<20":      `"20" is not a positive duration`,
		"p99<-1ms":    "not a positive duration",
		"errors<0.1":  "errors take a percentage",
		"errors<200%": "errors take a percentage",
		"errors<abc%": "errors take a percentage",
		"<20ms":       "write METRIC<LIMIT",
	} {
		_, err := ParseSLO(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSLO(%q): %v; want one line containing %q", in, err, want)
		}
	}
}

// TestJudgeGenerator: each of the three signs of a generator that fell behind makes a failing
// step generator-bound; none makes it the service's; a passing step passes whatever the
// generator did.
func TestJudgeGenerator(t *testing.T) {
	failing := StepResult{Target: 1000, Achieved: 1000, Requests: 5000, GeneratorCPU: 0.5}
	failing.Latency.P99, failing.Service.P99 = 30*time.Millisecond, 30*time.Millisecond
	for name, tc := range map[string]struct {
		change func(*StepResult)
		want   string
	}{
		"service":             {func(*StepResult) {}, Service},
		"busy thread":         {func(r *StepResult) { r.GeneratorCPU = 0.9 }, Generator},
		"run-queue delay":     {func(r *StepResult) { r.RunQueueDelay = 3 * time.Millisecond }, Generator}, // above 20 ms / 10
		"short run queue":     {func(r *StepResult) { r.RunQueueDelay = time.Millisecond }, Service},
		"late sends":          {func(r *StepResult) { r.LateSends, r.Service.P99 = 100, 5*time.Millisecond }, Generator}, // 2%
		"late, service slow":  {func(r *StepResult) { r.LateSends = 100 }, Service},
		"a few late sends":    {func(r *StepResult) { r.LateSends = 10 }, Service},
		"passing, busy":       {func(r *StepResult) { r.GeneratorCPU, r.Latency.P99 = 0.95, 5*time.Millisecond }, Pass},
		"achieved too few":    {func(r *StepResult) { r.Latency.P99, r.Achieved = 5*time.Millisecond, 980 }, Service},
		"errors break it":     {func(r *StepResult) { r.Latency.P99, r.Errors = 5*time.Millisecond, 10 }, Service},
		"starved, service ok": {func(r *StepResult) { r.Service.P99, r.ConnWaits = 5*time.Millisecond, 100 }, Connections},
	} {
		r := failing
		tc.change(&r)
		slos := []SLO{{Metric: "p99", Limit: 20 * time.Millisecond}, {Metric: "errors", Pct: 0.1}}
		if got, why := judge(slos, r); got != tc.want {
			t.Errorf("%s: verdict %s (%s), want %s", name, got, why, tc.want)
		}
	}
}

// TestDefaultConnections: Little's law at the rate and the tightest limit, doubled, at least 10.
func TestDefaultConnections(t *testing.T) {
	slos := []SLO{{Metric: "p99.9", Limit: 100 * time.Millisecond}, {Metric: "p99", Limit: 20 * time.Millisecond}}
	if got := DefaultConnections(100_000, slos); got != 4000 {
		t.Errorf("100,000 req/s at 20 ms: -c %d, want 4,000", got)
	}
	if got := DefaultConnections(100, slos); got != 10 {
		t.Errorf("100 req/s at 20 ms: -c %d, want the least, 10", got)
	}
}

// TestSpent: a step is given up once more answers are over the limit than the SLO leaves room
// for in its whole window, and not before.
func TestSpent(t *testing.T) {
	slos := []SLO{{Metric: "p99", Limit: 10 * time.Millisecond}, {Metric: "errors", Pct: 1}}
	// 20,000 answers so far, 300 of them (1.5%) at 50 ms: a p99 leaves room for 1,000 of 100,000.
	slow := func(over float64) func(p float64) time.Duration {
		return func(p float64) time.Duration {
			if p >= 100-over {
				return 50 * time.Millisecond
			}
			return time.Millisecond
		}
	}
	p := SoFar{Planned: 100_000, Answered: 20_000, LatencyAt: slow(1.5)}
	if why, ok := Spent(slos, p); ok {
		t.Errorf("spent (%s) with 300 slow answers of the 1,000 a p99 allows in 100,000", why)
	}
	p.LatencyAt = slow(6) // 1,200 of 20,000 over 10 ms: more than the window's 1,000
	if _, ok := Spent(slos, p); !ok {
		t.Error("not spent with 1,200 answers over 10 ms of the 1,000 allowed")
	}
	p = SoFar{Planned: 100_000, Answered: 500, Errors: 1_001, LatencyAt: slow(0)}
	if why, ok := Spent(slos, p); !ok {
		t.Error("not spent with 1,001 errors of the 1,000 allowed")
	} else if !strings.Contains(why, "errors") {
		t.Errorf("why %q", why)
	}
}
