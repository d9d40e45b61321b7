package bus

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// sample is what the observer sees at one tick.
type sample struct {
	at       time.Duration // since the run began
	accepted int64         // commands the broker holds during the fill (its depth); N after it
	depth    int64         // messages ready in the bus queues
	c        counts
}

// observer samples the run every second: commands accepted by the broker during the fill, the
// queue depth, and the consumer's reports; it also draws the live progress line. Its broker
// connection is its own and is reopened after a failure (a broker restart).
type observer struct {
	start    time.Time
	n        int64
	t        *tally
	fillDone atomic.Bool
	status   atomic.Pointer[string] // what the run is doing, for the progress line
	progress io.Writer

	dr        *depthReader
	lastDepth int64
	samples   []sample
	stop      chan struct{}
	done      chan struct{}
}

func newObserver(start time.Time, n int, url string, queues []string, t *tally, progress io.Writer) *observer {
	o := &observer{start: start, n: int64(n), t: t, progress: progress, dr: &depthReader{url: url, queues: queues},
		stop: make(chan struct{}), done: make(chan struct{})}
	o.setStatus("filling")
	return o
}

func (o *observer) setStatus(s string) { o.status.Store(&s) }

// run samples every second until halt.
func (o *observer) run() {
	defer close(o.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			o.take()
			if o.progress != nil {
				fmt.Fprint(o.progress, "\r\033[K")
			}
			o.dr.close()
			return
		case <-tick.C:
			o.take()
			o.draw()
		}
	}
}

// halt takes a last sample and stops the observer.
func (o *observer) halt() {
	close(o.stop)
	<-o.done
}

func (o *observer) take() {
	s := sample{at: time.Since(o.start), depth: o.depth(), c: o.t.snapshot()}
	s.accepted = o.n
	if !o.fillDone.Load() {
		s.accepted = min(s.depth, o.n)
	}
	o.samples = append(o.samples, s)
}

// depth returns the messages ready in the bus queues, or the last known figure while the broker
// cannot be reached.
func (o *observer) depth() int64 {
	if d, err := o.dr.depth(context.Background()); err == nil {
		o.lastDepth = d
	}
	return o.lastDepth
}

func (o *observer) draw() {
	if o.progress == nil || len(o.samples) == 0 {
		return
	}
	s := o.samples[len(o.samples)-1]
	var cmdRate, evRate float64
	if len(o.samples) > 1 {
		p := o.samples[len(o.samples)-2]
		dt := (s.at - p.at).Seconds()
		cmdRate = float64(s.c.cmdTotal-p.c.cmdTotal) / dt
		evRate = float64(s.c.evTotal-p.c.evTotal) / dt
	}
	fmt.Fprintf(o.progress, "\r\033[K%5.0fs %-10s fill %d/%d  commands %d/%d (%.0f/s)  events %d/%d (%.0f/s)  depth %d",
		s.at.Seconds(), *o.status.Load(), s.accepted, o.n, s.c.cmdDistinct, o.n, cmdRate, s.c.evDistinct, o.n, evRate, s.depth)
}

// interval is one point of the series with the time it covers.
type interval struct {
	dt    time.Duration
	point result.Point
}

// intervals turns the samples into one point per interval: rates per second of commands accepted
// by the broker (fill), commands and events handled, and the depth at the end of the interval.
func (o *observer) intervals() []interval {
	var out []interval
	var prev sample
	for _, s := range o.samples {
		dt := s.at - prev.at
		if dt <= 0 {
			continue
		}
		sec := dt.Seconds()
		out = append(out, interval{dt: dt, point: result.Point{
			Second:    len(out) + 1,
			Span:      math.Round(sec*1000) / 1000,
			Completed: s.c.cmdTotal - prev.c.cmdTotal,
			Values: map[string]float64{
				"fill":     round1(float64(s.accepted-prev.accepted) / sec),
				"commands": round1(float64(s.c.cmdTotal-prev.c.cmdTotal) / sec),
				"events":   round1(float64(s.c.evTotal-prev.c.evTotal) / sec),
				"depth":    float64(s.depth),
			},
		}})
		prev = s
	}
	return out
}

// peak returns the highest rate of key in any full second of the series, or 0 when the run
// had none (a phase shorter than a second has no peak second).
func peak(ivs []interval, key string) float64 {
	var best float64
	for _, iv := range ivs {
		if iv.dt >= 900*time.Millisecond {
			best = max(best, iv.point.Values[key])
		}
	}
	return best
}

// peakOver returns the highest mean rate of key over any run of consecutive intervals lasting
// at least w (what a chart sampling every w shows at its peak), or 0 when the series is shorter.
func peakOver(ivs []interval, key string, w time.Duration) float64 {
	var best float64
	for i := range ivs {
		var n float64
		var d time.Duration
		for j := i; j < len(ivs) && d < w; j++ {
			n += ivs[j].point.Values[key] * ivs[j].dt.Seconds()
			d += ivs[j].dt
		}
		if d >= w {
			best = max(best, n/d.Seconds())
		}
	}
	return round1(best)
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
