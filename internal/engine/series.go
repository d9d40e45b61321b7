package engine

import (
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// ticker turns the groups' per-second figures into the series and the progress snapshots.
type ticker struct {
	r      *run
	began  time.Time
	last   time.Time
	points []result.Point
	second *stats.Sparse // scratch: the last second, merged over groups
	total  *stats.Sparse // everything so far, for "p99 so far"
	done   int64
	errs   int64
}

func newTicker(r *run) *ticker {
	return &ticker{r: r, second: stats.NewSparse(), total: stats.NewSparse()}
}

// begin marks the start of the measured phase.
func (t *ticker) begin() { t.beginAt(time.Now()) }

// beginAt marks the start of the measured phase at at.
func (t *ticker) beginAt(at time.Time) {
	t.began = at
	t.last = at
}

// tick closes one interval: it appends a point and calls OnSecond.
func (t *ticker) tick() {
	if t.began.IsZero() {
		return
	}
	now := time.Now()
	span := now.Sub(t.last)
	t.last = now
	var done, errs int64
	t.second.Reset()
	for _, g := range t.r.groups {
		d, e := g.tick(span, t.second)
		done += d
		errs += e
	}
	t.total.Merge(t.second)
	t.done += done
	t.errs += errs
	p := result.Point{Second: len(t.points) + 1, Span: round3(span.Seconds()), Completed: done, Errors: errs}
	if t.second.Count() > 0 {
		p.P50 = t.second.Quantile(50)
		p.P99 = t.second.Quantile(99)
	}
	t.points = append(t.points, p)
	if f := t.r.cfg.OnSecond; f != nil {
		f(Snapshot{
			Elapsed:   now.Sub(t.began),
			Total:     t.plannedDuration(),
			Completed: t.done,
			Planned:   t.r.cfg.Requests,
			RateNow:   float64(done) / span.Seconds(),
			P99:       t.total.Quantile(99),
			Errors:    t.errs,
			LatencyAt: t.total.Quantile,
		})
	}
}

func (t *ticker) plannedDuration() time.Duration {
	if t.r.cfg.Requests > 0 {
		return 0
	}
	return t.r.cfg.Duration
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// adopt returns into with h added, or h itself when into is nil. collect runs once every
// connection has finished, so the first group's histograms become the run's: copying them into
// fresh ones would write again every page the run's tail reached, at the run's peak RSS.
func adopt(into, h *stats.Histogram) *stats.Histogram {
	if into == nil {
		return h
	}
	into.Merge(h)
	return into
}

// collect merges the groups into the run's result, closing the last partial second. Every
// connection has finished: the groups are read here for the last time.
func (r *run) collect(t *ticker) *Result {
	if !t.began.IsZero() && time.Since(t.last) >= 10*time.Millisecond {
		cb := r.cfg.OnSecond
		r.cfg.OnSecond = nil // the final snapshot is the summary, not a progress line
		t.tick()
		r.cfg.OnSecond = cb
	}
	res := &Result{Errors: map[string]int64{}, Series: t.points, Scheduled: r.scheduled()}
	if r.cfg.TLS != nil {
		res.TLS = newTLSResult()
	}
	for i := range r.slots {
		s := &r.slots[i]
		s.mu.Lock()
		res.Answered += s.answered
		res.Unanswered += s.unanswered
		s.mu.Unlock()
	}
	var errs [nClasses]int64
	var h2 h2stats
	for _, g := range r.groups {
		g.mu.Lock()
		h2.add(&g.h2)
		res.Latency = adopt(res.Latency, g.corrected)
		if g.timing != nil {
			res.Timing = adopt(res.Timing, g.timing)
			res.Untimed += g.untimed
		}
		if g.tls != nil {
			res.TLS.merge(g.tls)
		}
		if g.open {
			res.Uncorrected = adopt(res.Uncorrected, g.uncorr)
			res.Lag = adopt(res.Lag, g.lag)
		}
		res.Completed += g.completed
		res.Succeeded += g.succeeded
		res.Late += g.late
		res.LateFree += g.lateFree
		res.ConnWaits += g.waits
		res.Early += g.early.Load()
		res.BytesRead += g.bytes
		for i, n := range g.errs {
			errs[i] += n
		}
		res.Rates = append(res.Rates, g.rates...)
		res.Threads = append(res.Threads, result.ThreadStats{Connections: g.conns, Completed: g.completed})
		g.mu.Unlock()
	}
	for i, n := range errs {
		if n > 0 {
			res.Errors[ErrorClasses[i]] = n
		}
	}
	if r.cfg.HTTP2 {
		res.HTTP2 = h2.record(&r.cfg)
	}
	res.Start = t.began
	switch {
	case t.began.IsZero():
	case len(t.points) == 0: // over before the last partial second was worth a point
		res.Elapsed = time.Since(t.began)
	default:
		res.Elapsed = t.last.Sub(t.began)
	}
	return res
}
