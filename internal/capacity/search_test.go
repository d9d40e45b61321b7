package capacity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/units"
)

var p99Under20ms = []SLO{{Metric: "p99", Limit: 20 * time.Millisecond}}

// knee is a simulated service of capacity k: below it every request takes 5 ms; above it the
// queue grows, p99 reaches 200 ms and only k req/s are answered.
func knee(k float64) StepFunc {
	return func(_ context.Context, rate float64, conns int) (StepResult, error) {
		r := StepResult{Target: rate, Achieved: rate, Requests: int64(rate * 5), GeneratorCPU: 0.2}
		r.Latency = Latencies{P50: 2 * time.Millisecond, P99: 5 * time.Millisecond, P999: 6 * time.Millisecond, Max: 8 * time.Millisecond}
		r.Service = r.Latency
		if rate > k {
			r.Achieved = k
			r.Latency = Latencies{P50: 100 * time.Millisecond, P99: 200 * time.Millisecond, P999: 210 * time.Millisecond, Max: 220 * time.Millisecond}
			r.Service = r.Latency
		}
		return r, nil
	}
}

func settings() Settings {
	s := Defaults()
	s.SLOs = p99Under20ms
	return s
}

func search(t *testing.T, s Settings, step StepFunc) *Record {
	t.Helper()
	rec, err := Search(context.Background(), s, step, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rec.Line())
	return rec
}

// checkAnswer: a confirmed answer within the precision below the knee, and a bracket around it.
func checkAnswer(t *testing.T, rec *Record, k, precision float64) {
	t.Helper()
	if rec.MaxSustainableRate == nil || rec.Bound != Service {
		t.Fatalf("bound %q, answer %v: want the service's knee", rec.Bound, rec.MaxSustainableRate)
	}
	got := *rec.MaxSustainableRate
	if got > k*(1+precision) || got < k*(1-precision) {
		t.Errorf("answer %.0f, want within %.0f%% of %.0f", got, 100*precision, k)
	}
	if b := rec.Bracket; b.Low != got || (b.High-b.Low)/b.Low > 0.02 {
		t.Errorf("bracket %+v around %.0f: want low = the answer and a width of 2%% at most", b, got)
	}
	if c := rec.Confirmations; c.Runs != 3 || c.Passed != 3 {
		t.Errorf("confirmations %+v, want 3 of 3", c)
	}
}

// TestSearchStepFunction: climb, bisect and confirm find a sharp knee to the precision.
func TestSearchStepFunction(t *testing.T) {
	for _, k := range []float64{2000, 20000, 3333} {
		rec := search(t, settings(), knee(k))
		checkAnswer(t, rec, k, 0.02)
		if got := *rec.MaxSustainableRate; got > k {
			t.Errorf("answer %.0f above the knee %.0f", got, k)
		}
		pool := fmt.Sprintf("p99 5 ms < 20 ms, on %s connections", units.Count(int64(DefaultConnections(*rec.MaxSustainableRate, p99Under20ms))))
		if !strings.HasPrefix(rec.Line(), "max sustainable rate: ") || !strings.Contains(rec.Line(), pool) {
			t.Errorf("line %q, want it to say %q", rec.Line(), pool)
		}
	}
}

// TestSearchNoisyKnee: a knee that moves by up to 1% from step to step is still found within 5%.
func TestSearchNoisyKnee(t *testing.T) {
	answered := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		noisy := func(ctx context.Context, rate float64, conns int) (StepResult, error) {
			return knee(10000*(1+0.02*(rng.Float64()-0.5)))(ctx, rate, conns)
		}
		rec := search(t, settings(), noisy)
		if rec.MaxSustainableRate == nil {
			continue // a confirmation can fail on noise and step down: then the answer is lower
		}
		answered++
		if got := *rec.MaxSustainableRate; math.Abs(got-10000)/10000 > 0.05 {
			t.Errorf("seed %d: answer %.0f, want within 5%% of 10,000", seed, got)
		}
	}
	if answered < 10 {
		t.Errorf("%d of 20 noisy searches answered: want most of them", answered)
	}
}

// TestSearchGeneratorBound: a generator that saturates before the service stops the search as
// generator-bound, with no service capacity, the service's passing rate as a lower bound.
func TestSearchGeneratorBound(t *testing.T) {
	step := func(ctx context.Context, rate float64, conns int) (StepResult, error) {
		r, _ := knee(50000)(ctx, rate, conns)
		if rate > 8000 { // the generator cannot send more than 8,000 req/s
			r.GeneratorCPU, r.Achieved, r.LateSends = 0.98, 8000, int64(rate*2)
			r.Latency.P99 = 900 * time.Millisecond
		}
		return r, nil
	}
	rec := search(t, settings(), step)
	if rec.Bound != Generator || rec.MaxSustainableRate != nil || rec.Bracket.Low != 8000 {
		t.Fatalf("bound %q, answer %v, bracket %+v: want generator-bound with 8,000 passed", rec.Bound, rec.MaxSustainableRate, rec.Bracket)
	}
	line := rec.Line()
	for _, want := range []string{"generator-bound at 16,000 req/s", "sustained at least 8,000 req/s", "98% of a core", "sent late"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}

// upstream is a service whose every call takes 10 ms, concurrently, without a capacity limit:
// conns connections carry conns/10ms req/s; above, requests wait for a connection.
func upstream(ctx context.Context, rate float64, conns int) (StepResult, error) {
	r := StepResult{Target: rate, Achieved: rate, Requests: int64(rate * 5)}
	r.Service = Latencies{P50: 10 * time.Millisecond, P99: 11 * time.Millisecond, P999: 12 * time.Millisecond, Max: 15 * time.Millisecond, Mean: 10 * time.Millisecond}
	r.Latency = r.Service
	if limit := float64(conns) / 0.01; rate > limit {
		r.Achieved, r.ConnWaits = limit, r.Requests/2
		r.Latency = Latencies{P50: 2 * time.Second, P99: 4 * time.Second, P999: 4 * time.Second, Max: 5 * time.Second}
	}
	return r, nil
}

// TestSearchStarvedGiven: with -c given, a connection-starved step stops the search, says the
// -c it needs and reports no capacity.
func TestSearchStarvedGiven(t *testing.T) {
	s := settings()
	s.SLOs = []SLO{{Metric: "p99", Limit: time.Second}}
	s.StartRate, s.Connections, s.ConnectionsGiven = 100, 2, true
	rec := search(t, s, upstream)
	if rec.Bound != Connections || rec.MaxSustainableRate != nil || rec.NeededConnections < 8 {
		t.Fatalf("bound %q, answer %v, needed -c %d: want connection-starved, no answer, -c 8 or more", rec.Bound, rec.MaxSustainableRate, rec.NeededConnections)
	}
	if line := rec.Line(); !strings.Contains(line, "connection-starved at 400 req/s with -c 2") || !strings.Contains(line, "rerun with -c") {
		t.Errorf("line %q", line)
	}
	for _, st := range rec.Steps {
		if st.Phase == "retry" || st.Connections != 2 {
			t.Errorf("step %+v: -c given by hand must not be raised", st)
		}
	}
}

// TestSearchStarvedRaised: without -c, each step has Little's law's connections for its rate,
// capped by MaxConnections (the open-file limit, or the scenario's max_connections); a service
// whose calls take 10 ms fills the capped pool, and the step is run once more with the
// connections it needed, the cap allowing, before the search stops and says what it needed.
func TestSearchStarvedRaised(t *testing.T) {
	s := settings()
	s.SLOs = []SLO{{Metric: "p99", Limit: time.Second}}
	s.StartRate, s.Ceiling, s.MaxConnections = 100, 3200, 8
	rec := search(t, s, upstream)
	if rec.Bound != Connections || rec.MaxSustainableRate != nil || rec.NeededConnections < 16 {
		t.Fatalf("bound %q, answer %v, needed -c %d: want connection-starved above the cap's 800 req/s", rec.Bound, rec.MaxSustainableRate, rec.NeededConnections)
	}
	last := rec.Steps[len(rec.Steps)-1]
	if last.Phase != "retry" || last.Connections != 8 || last.TargetRate != 1600 {
		t.Errorf("last step %+v: want the retry at 1,600 req/s, held to the cap of 8", last)
	}
}

// TestStallIsNotStarvation: requests that waited for a connection while the pool was mostly idle
// waited behind a stall of the service, which held every connection for a moment: the step is the
// service's failure, not the pool's.
func TestStallIsNotStarvation(t *testing.T) {
	r := StepResult{Target: 45000, Achieved: 45000, Requests: 225000, ConnWaits: 2000, Connections: 900}
	r.Service = Latencies{P50: 100 * time.Microsecond, P99: 8 * time.Millisecond, Mean: 200 * time.Microsecond}
	r.Latency = Latencies{P50: 100 * time.Microsecond, P99: 25 * time.Millisecond, Mean: 400 * time.Microsecond}
	if v, why := judge(p99Under20ms, r); v != Service {
		t.Errorf("verdict %s (%s), want service: 9 of 900 connections were busy on average", v, why)
	}
	r.Connections = 16
	if v, why := judge(p99Under20ms, r); v != Connections {
		t.Errorf("verdict %s (%s), want connections: 9 of 16 were busy on average", v, why)
	}
}

// TestSearchStarvedServiceSlow: a starved step whose service time already breaks the SLO is the
// service's failure, not the connections'.
func TestSearchStarvedServiceSlow(t *testing.T) {
	r := StepResult{Target: 1000, Achieved: 500, Requests: 5000, ConnWaits: 2000}
	r.Latency.P99, r.Service.P99 = time.Second, 50*time.Millisecond
	if v, why := judge(p99Under20ms, r); v != Service {
		t.Errorf("verdict %s (%s), want service", v, why)
	}
}

// TestSearchFirstStepFails: a first step above the knee steps down by halves until one passes,
// then bisects.
func TestSearchFirstStepFails(t *testing.T) {
	rec := search(t, settings(), knee(300))
	checkAnswer(t, rec, 300, 0.02)
	if rec.Steps[0].Verdict == Pass || rec.Steps[1].Phase != "down" {
		t.Errorf("steps %+v: want a failing first step, then a step down", rec.Steps[:2])
	}
}

// TestSearchFloor: a service that fails at every rate has no answer once the floor is passed.
func TestSearchFloor(t *testing.T) {
	rec := search(t, settings(), knee(5))
	if rec.MaxSustainableRate != nil || rec.Bound != Service || !strings.Contains(rec.Line(), "floor") {
		t.Errorf("answer %v, bound %q, line %q: want none, at the floor", rec.MaxSustainableRate, rec.Bound, rec.Line())
	}
}

// TestSearchCeiling: a service faster than the ceiling is reported "≥ ceiling".
func TestSearchCeiling(t *testing.T) {
	s := settings()
	s.Ceiling = 5000
	rec := search(t, s, knee(1e9))
	if rec.Bound != Ceiling || *rec.MaxSustainableRate != 5000 || rec.Steps[len(rec.Steps)-1].TargetRate != 5000 {
		t.Fatalf("bound %q, answer %v: want ≥ the ceiling, its last step at it", rec.Bound, rec.MaxSustainableRate)
	}
	if !strings.Contains(rec.Line(), "≥ 5,000 req/s, the ceiling") {
		t.Errorf("line %q", rec.Line())
	}
}

// droppingKnee is knee(from) for the first steps, then knee(to).
func droppingKnee(from, to float64, steps int) StepFunc {
	n := 0
	return func(ctx context.Context, rate float64, conns int) (StepResult, error) {
		if n++; n > steps {
			return knee(to)(ctx, rate, conns)
		}
		return knee(from)(ctx, rate, conns)
	}
}

// TestSearchConfirmationFails: a service whose knee drops while it is searched fails its
// confirmation; the search steps down, says so, and confirms a lower answer.
func TestSearchConfirmationFails(t *testing.T) {
	rec := search(t, settings(), droppingKnee(10000, 9000, 10))
	if rec.Confirmations.Failed != 1 {
		t.Errorf("confirmations %+v: want one failed round", rec.Confirmations)
	}
	checkAnswer(t, rec, 9000, 0.02)
	if !strings.Contains(rec.Line(), "stepped down") {
		t.Errorf("line %q does not say it stepped down", rec.Line())
	}
}

// TestSearchConfirmationFailsLowest: when the answer that fails its confirmation was the lowest
// rate that passed, the search steps down by halves from it, then bisects and confirms anew.
func TestSearchConfirmationFailsLowest(t *testing.T) {
	rec := search(t, settings(), droppingKnee(1000, 600, 5))
	checkAnswer(t, rec, 600, 0.02)
	if rec.Confirmations.Failed != 1 || !slices.ContainsFunc(rec.Steps, func(s StepRecord) bool { return s.Phase == "down" && s.TargetRate == 500 }) {
		t.Errorf("confirmations %+v, steps %+v: want one failed round, then a step down to 500", rec.Confirmations, rec.Steps)
	}
}

// TestSearchInterrupted: a cancelled search returns the bracket so far, marked interrupted.
func TestSearchInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	step := func(c context.Context, rate float64, conns int) (StepResult, error) {
		if n++; n == 4 {
			cancel()
		}
		return knee(3000)(c, rate, conns)
	}
	rec, err := Search(ctx, settings(), step, nil)
	if err != nil || !rec.Interrupted || rec.Bracket.Low != 2000 || rec.Bracket.High != 4000 {
		t.Fatalf("err %v, record %+v: want interrupted with the bracket 2,000–4,000", err, rec)
	}
	if !strings.HasPrefix(rec.Line(), "interrupted: bracket 2,000–4,000") {
		t.Errorf("line %q", rec.Line())
	}
}

// TestSearchMaxSteps: a search out of steps gives no answer and says why.
func TestSearchMaxSteps(t *testing.T) {
	s := settings()
	s.MaxSteps = 4
	rec := search(t, s, knee(20000))
	if rec.MaxSustainableRate != nil || len(rec.Steps) != 4 || !strings.Contains(rec.Reason, "--max-steps") {
		t.Errorf("answer %v, %d steps, reason %q", rec.MaxSustainableRate, len(rec.Steps), rec.Reason)
	}
}

// TestSearchMaxConnections: without -c, no step is given more connections than the cap (the
// open-file limit), however many Little's law asks for.
func TestSearchMaxConnections(t *testing.T) {
	s := settings()
	s.SLOs = []SLO{{Metric: "p99", Limit: time.Second}}
	s.MaxConnections = 50
	rec := search(t, s, knee(3000))
	for _, st := range rec.Steps {
		if st.Connections > 50 {
			t.Fatalf("step %+v: more than the cap of 50 connections", st)
		}
	}
	if rec.Steps[0].Connections != 50 {
		t.Errorf("first step at 1,000 req/s within 1 s: %d connections, want the cap, 50", rec.Steps[0].Connections)
	}
}

// TestJudgeAchievedShare: a step just short of 99% of its target fails, and says a share below 99%.
func TestJudgeAchievedShare(t *testing.T) {
	l := Latencies{P50: time.Millisecond, P99: 2 * time.Millisecond}
	r := StepResult{Target: 400, Achieved: 395.98, Requests: 2000, Latency: l, Service: l}
	if v, why := judge(p99Under20ms, r); v != Service || !strings.Contains(why, "(98.9%)") {
		t.Errorf("verdict %s, why %q: want a service failure at 98.9%%", v, why)
	}
}

// TestJudgeOffered: with Poisson arrivals a step is held to the rate its schedule offered, which
// falls short of the target by chance: 388 of 392 offered passes where 388 of 400 asked would not,
// and 386 of 392 fails, saying "offered".
func TestJudgeOffered(t *testing.T) {
	l := Latencies{P50: time.Millisecond, P99: 2 * time.Millisecond}
	r := StepResult{Target: 400, Offered: 392, Achieved: 388.5, Requests: 1960, Latency: l, Service: l}
	if v, why := judge(p99Under20ms, r); v != Pass {
		t.Errorf("388.5 of 392 offered: verdict %s (%s), want pass", v, why)
	}
	r.Achieved = 386
	if v, why := judge(p99Under20ms, r); v != Service || !strings.Contains(why, "of 392 req/s offered (98.4%)") {
		t.Errorf("386 of 392 offered: verdict %s, why %q: want a service failure naming the offered rate", v, why)
	}
}

// TestJudgeLateSendsBreakLatency: requests sent late while their connection was free make a step
// generator-bound only when a latency SLO (from the intended start) broke; a step that missed
// only its rate, its latency holding, is the service's (a knee seen in quiet capacity-fanout
// runs: 2.8% of sends over 1 ms late, p99 60 ms < 100 ms, 98.7% of the rate).
func TestJudgeLateSendsBreakLatency(t *testing.T) {
	l := Latencies{P50: time.Millisecond, P99: 2 * time.Millisecond}
	r := StepResult{Target: 12000, Achieved: 11854, Requests: 24000, Latency: l, Service: l, LateSends: 669}
	if v, why := judge(p99Under20ms, r); v != Service {
		t.Errorf("rate missed, latency held, late sends: verdict %s (%s), want the service's", v, why)
	}
	r.Latency.P99 = 300 * time.Millisecond // the same late sends now broke the p99 from the intended start
	if v, why := judge(p99Under20ms, r); v != Generator || !strings.Contains(why, "sent late") {
		t.Errorf("p99 broken by late sends: verdict %s (%s), want generator-bound", v, why)
	}
}

// TestSearchGeneratorBoundOnce: a step the generator fell behind on once (and not on its retry)
// does not end the search: the knee is still found, and the step is in the record twice.
func TestSearchGeneratorBoundOnce(t *testing.T) {
	behind := 0
	step := func(ctx context.Context, rate float64, conns int) (StepResult, error) {
		r, _ := knee(10000)(ctx, rate, conns)
		if rate == 10000 && behind == 0 { // the first bisection step at the knee
			behind++
			r.LateSends, r.Latency.P99 = int64(rate), 900*time.Millisecond // 20% sent late, connection free
		}
		return r, nil
	}
	rec := search(t, settings(), step)
	checkAnswer(t, rec, 10000, 0.02)
	if behind != 1 || !slices.ContainsFunc(rec.Steps, func(s StepRecord) bool { return s.Verdict == Generator }) {
		t.Fatalf("behind %d, steps %+v: want one generator-bound step in the record", behind, rec.Steps)
	}
}
