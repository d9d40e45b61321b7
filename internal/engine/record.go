package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// Fill writes the run's measurements into rec: counts, throughput, latency, series, threads.
func (res *Result) Fill(rec *result.Record, cfg Config) {
	rec.LoadModel = "closed"
	if cfg.Rate > 0 {
		rec.LoadModel = "open"
	}
	rec.StartedAt = res.Start
	rec.Duration = result.Duration(res.Elapsed)
	rec.Interrupted = res.Interrupted
	var failed int64
	for _, n := range res.Errors {
		failed += n
	}
	rec.Counts = result.Counts{
		Attempted: res.Succeeded + failed,
		Succeeded: res.Succeeded,
		Failed:    failed,
		Errors:    res.Errors,
		Late:      res.Late,
		BytesRead: res.BytesRead,
	}
	secs := res.Elapsed.Seconds()
	rec.Throughput = result.Throughput{Unit: "req/s", TargetRate: cfg.Rate}
	if secs > 0 {
		rec.Throughput.Mean = round2(float64(res.Succeeded) / secs)
		rec.Throughput.BytesPerSec = round2(float64(res.BytesRead) / secs)
	}
	rec.Throughput.PeakSecond = peak(res.Series)
	rec.Latency = res.Latency.Summary()
	if res.Uncorrected != nil {
		rec.Uncorrected = res.Uncorrected.Summary()
		rec.ScheduleLag = res.Lag.Summary()
	}
	if res.TLS != nil {
		rec.TLS = res.TLS.Record()
	}
	rec.HTTP2 = res.HTTP2
	rec.Series = res.Series
	rec.Threads = res.Threads
	rec.ThreadRate = stats.Rates(res.Rates)
}

// peak is the highest per-second rate over full intervals (a short last interval is left out).
func peak(points []result.Point) float64 {
	var best float64
	for _, p := range points {
		if p.Span >= 0.9 {
			best = math.Max(best, float64(p.Completed)/p.Span)
		}
	}
	return round2(best)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// Usage is what the generator itself cost during a run.
type Usage struct {
	CPU     time.Duration
	Wall    time.Duration
	Threads int
	Cores   int
	Planned time.Duration // the measured phase asked for (0 with a request count)
}

// Warnings returns what a reader must know before trusting rec: a generator that was the
// bottleneck, percentiles resting on too few samples, a run too short, errors, a missed rate.
func Warnings(rec *result.Record, u Usage) []string {
	var w []string
	if u.Wall > 0 {
		avail := float64(min(u.Threads, u.Cores))
		if use := u.CPU.Seconds() / u.Wall.Seconds(); use >= 0.9*avail {
			w = append(w, fmt.Sprintf("generator saturated: iobench used %.2f of the %.0f cores it had; the limit may be iobench, not the server (raise -t, or run the server elsewhere)", use, avail))
		}
	}
	if l := rec.Latency; l != nil && l.Count > 0 {
		for _, p := range []float64{99, 99.9, 99.99} {
			beyond := float64(l.Count) * (100 - p) / 100
			if beyond < 10 {
				w = append(w, fmt.Sprintf("p%g rests on %.0f samples beyond it: run at least %d requests for it to mean something", p, beyond, int64(math.Ceil(1000/(100-p)))))
				break
			}
		}
	}
	if u.Planned > 0 && u.Planned < 5*time.Second && rec.LoadModel == "open" {
		w = append(w, "open-loop run shorter than 5s: timer start-up and warm-up dominate; use -d 10s or more")
	}
	if rec.Counts.Failed > 0 && rec.Counts.Succeeded == 0 {
		w = append(w, "no request succeeded: every figure describes errors")
	} else if n := rec.Counts.Errors[ErrConnect]; n > 0 {
		w = append(w, fmt.Sprintf("%d connect errors: the server refused or dropped connections during the run", n))
	}
	if h := rec.HTTP2; h != nil && h.StreamsAllowed > 0 {
		w = append(w, fmt.Sprintf("the server allows %d concurrent streams per connection: --streams %d was capped to %d", h.StreamsAllowed, h.Streams, h.StreamsAllowed))
	}
	if n := rec.Counts.Errors[ErrInFlight]; n > 0 {
		w = append(w, fmt.Sprintf("%d requests were in flight on connections that closed before answering them (counted as %s errors, not lost)", n, ErrInFlight))
	}
	if t := rec.Throughput.TargetRate; t > 0 && rec.Duration.Std() > 0 {
		secs := rec.Duration.Seconds()
		got, short := float64(rec.Counts.Attempted)/secs, 0.05*t
		if rec.Parameters["arrivals"] == ArrivalsPoisson {
			short += 3 * math.Sqrt(t*secs) / secs // a Poisson count of mean t*secs falls 3 sd short by chance once in 700 runs
		}
		if got < t-short {
			w = append(w, fmt.Sprintf("target rate missed: asked %.0f req/s, sent %.0f req/s; latencies include the queueing this caused", t, got))
		}
	}
	if rec.Interrupted {
		w = append(w, "interrupted: this is a partial result")
	}
	return w
}
