package publish

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// How the broker-accepted count is read.
const (
	CountedByConfirms = "confirms"       // broker acks of publisher confirms
	CountedByQueue    = "queue"          // the queue's message count (passive queue.declare)
	CountedByConsumed = "queue+consumed" // the queue's count plus what consumers received
)

// sample is the state of a run at one instant.
type sample struct {
	at                           time.Time
	written, confirmed, consumed int64
	depth                        int64 // -1 when not read
	accepted                     int64
}

// counters reads the client-side counters (written, confirmed, consumed).
type counters func() (written, confirmed, consumed int64)

// observer reads the broker once a second for the series, and as often as asked while the last
// messages drain, so that the moment the broker counted the last one is known to a few ms.
type observer struct {
	countedBy string
	counts    counters
	depth     func(ctx context.Context) (int64, error) // nil when the run does not read the queue
	progress  io.Writer
	planned   int64
	// clientSide is false when the publisher is another process: there is no client write
	// count, only what the broker counted.
	clientSide bool

	mu         sync.Mutex
	t0         time.Time
	lastPoint  sample
	latest     sample
	lastChange time.Time // when accepted last grew
	points     []result.Point
	depthErrs  int
	lastErr    error
}

func newObserver(countedBy string, counts counters, depth func(context.Context) (int64, error), progress io.Writer, planned int64) *observer {
	return &observer{countedBy: countedBy, counts: counts, depth: depth, progress: progress, planned: planned}
}

// begin sets the start of the measured phase.
func (o *observer) begin(t0 time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.t0 = t0
	o.lastPoint = sample{at: t0}
	o.latest = o.lastPoint
	o.lastChange = t0
}

// read takes a sample: the client counters (consumed first, so a message in flight between the
// consumer and the queue is counted at most once), then the queue's depth from the broker.
func (o *observer) read(ctx context.Context) sample {
	var s sample
	before := time.Now()
	s.written, s.confirmed, s.consumed = o.counts()
	s.depth = -1
	if o.depth != nil {
		d, err := o.depth(ctx)
		o.mu.Lock()
		if err != nil {
			o.depthErrs++
			o.lastErr = err
			d = max(o.latest.depth, 0)
		}
		o.mu.Unlock()
		s.depth = d
	}
	// The broker answered somewhere within the round trip; a busy broker makes it long, so the
	// middle is the best guess of when its count was true.
	s.at = before.Add(time.Since(before) / 2)
	switch o.countedBy {
	case CountedByConfirms:
		s.accepted = s.confirmed
	case CountedByConsumed:
		s.accepted = s.depth + s.consumed
	default:
		s.accepted = s.depth
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if s.accepted > o.latest.accepted {
		o.lastChange = s.at
	}
	if s.accepted < o.latest.accepted && o.countedBy != CountedByConfirms {
		// A sample between a delivery and its count; never let the count go back.
		s.accepted = o.latest.accepted
	}
	o.latest = s
	return s
}

// tick records one point of the series ending now and redraws the progress line.
func (o *observer) tick(ctx context.Context) {
	s := o.read(ctx)
	o.mu.Lock()
	o.addPoint(s)
	o.mu.Unlock()
	o.draw(s)
}

// addPoint appends the interval from the last point to s. Callers hold mu.
func (o *observer) addPoint(s sample) {
	p := o.lastPoint
	span := s.at.Sub(p.at).Seconds()
	if span <= 0 {
		return
	}
	pt := result.Point{
		Second:    len(o.points) + 1,
		Span:      math.Round(span*1000) / 1000,
		Completed: s.accepted - p.accepted,
		Values:    map[string]float64{},
	}
	if o.clientSide {
		pt.Values["client_written"] = float64(s.written - p.written)
	}
	if o.countedBy == CountedByConfirms {
		pt.Values["confirmed"] = float64(s.confirmed - p.confirmed)
	}
	if s.consumed > 0 || p.consumed > 0 {
		pt.Values["consumed"] = float64(s.consumed - p.consumed)
	}
	if s.depth >= 0 {
		pt.Values["queue_depth"] = float64(s.depth)
	}
	o.points = append(o.points, pt)
	o.lastPoint = s
}

// run ticks every second from t0 until stop is closed.
func (o *observer) run(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			o.tick(ctx)
		}
	}
}

// finish records the last, partial interval up to the final sample.
func (o *observer) finish(s sample) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if s.at.After(o.lastPoint.at) {
		o.addPoint(s)
	}
}

// settled polls the broker until the accepted count reaches want, or has not moved for quiet, or
// the deadline passes; it returns the last sample and when the count last grew.
func (o *observer) settled(ctx context.Context, want int64, quiet, timeout time.Duration) (sample, time.Time) {
	deadline := time.Now().Add(timeout)
	t := time.NewTicker(10 * time.Millisecond) // observing the broker: there is nothing to wait on
	defer t.Stop()
	for {
		s := o.read(ctx)
		o.mu.Lock()
		changed := o.lastChange
		o.mu.Unlock()
		if s.accepted >= want || time.Since(changed) > quiet || time.Now().After(deadline) || ctx.Err() != nil {
			return s, changed
		}
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}

// peak returns the best one-second rate of the series. Intervals shorter than 0.75 s (the last,
// partial one) are left out: a short burst scaled up to a second would overstate the peak.
func (o *observer) peak(value func(result.Point) float64) float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	best := 0.0
	for _, p := range o.points {
		if p.Span >= 0.75 {
			best = max(best, value(p)/p.Span)
		}
	}
	return math.Round(best*10) / 10
}

func (o *observer) series() []result.Point {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]result.Point(nil), o.points...)
}

func (o *observer) draw(s sample) {
	if o.progress == nil {
		return
	}
	where := s.at.Sub(o.t0).Round(time.Second).String()
	if o.planned > 0 && o.clientSide {
		where = fmt.Sprintf("%s/%s written", units.Count(s.written), units.Count(o.planned))
	}
	fmt.Fprintf(o.progress, "\r\033[K[%s] broker accepted %s (%s)", where, units.Count(s.accepted), o.countedBy)
}
