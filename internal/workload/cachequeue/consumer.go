package cachequeue

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/cpuset"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
)

// How iobench waits for a consumer after the load: idle a moment after the load's end (a
// message still on its way makes it print within that), and never silent this long while busy
// (it prints every 10 ms while messages come, or runs dry after its timeout).
const (
	settle  = 200 * time.Millisecond
	silence = 5 * time.Second
)

var (
	readyLine    = regexp.MustCompile(`^ready$`)
	receivedLine = regexp.MustCompile(`^received (\d+) (\d+(?:\.\d+)?)$`)
	dryLine      = regexp.MustCompile(`^Processed \d+ entries$`)
	totalLine    = regexp.MustCompile(`^total (\d+)$`)
)

// consumer is the impl's consumer of the run's queue route (docs/IMPLS.md, "Queue consumers"),
// run beside it through sut, and what its lines said.
type consumer struct {
	argv []string
	cpus cpuset.Set // the impl's, if the scenario pins it
	p    *sut.Process

	mu      sync.Mutex
	points  []point   // its progress lines
	idle    bool      // its last state line was "ready" or the seed's "Processed N entries"
	idleAt  time.Time // when that line came
	heardAt time.Time // when its last state line came
	total   int64     // its "total N"; -1 until it says
	marked  time.Time // the end of the warm-up, where its cost starts counting
}

// point is one progress line: n messages received, the last at the consumer's time at.
type point struct {
	n  int64
	at time.Time
}

// consumerOf returns the consumer the run asks for (consumers: true) of route, not started; nil
// when it asks for none or the impl declares none for the route.
func consumerOf(t workload.Target, r scenario.Run, route string) *consumer {
	if on, _ := r.Params["consumers"].(bool); !on {
		return nil
	}
	argv := ManifestOf(t.Inst.Manifest).Consumers[route]
	if len(argv) == 0 {
		return nil
	}
	return &consumer{argv: argv, cpus: r.CPUs.SUT, total: -1}
}

func (c *consumer) name() string { return strings.Join(c.argv, " ") }

// start runs the consumer beside the impl, on the impl's CPUs, with the stores' addresses and
// returns once it says ready (a ZeroMQ consumer has bound the endpoint). A nil consumer starts
// nothing.
func (c *consumer) start(ctx context.Context, t workload.Target, a Addrs) error {
	if c == nil {
		return nil
	}
	p, err := t.Inst.StartHelper(ctx, c.name(), c.argv, readyLine,
		impl.StartOptions{Variant: t.Variant.Name, Env: a.environ(), OnLine: c.onLine, CPUs: c.cpus})
	if err != nil {
		return fmt.Errorf("cachequeue: the consumer of the route: %w", err)
	}
	c.p = p
	return nil
}

// onLine reads one line of the consumer's output; lines it does not know stay in its log.
func (c *consumer) onLine(line string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := receivedLine.FindStringSubmatch(line); m != nil {
		var n int64
		var at float64
		fmt.Sscan(m[1], &n)
		fmt.Sscan(m[2], &at)
		c.points = append(c.points, point{n, time.Unix(0, int64(at*1e9))})
		c.idle, c.heardAt = false, now
		return
	}
	if readyLine.MatchString(line) || dryLine.MatchString(line) {
		c.idle, c.idleAt, c.heardAt = true, now, now
		return
	}
	if m := totalLine.FindStringSubmatch(line); m != nil {
		fmt.Sscan(m[1], &c.total)
	}
}

// mark starts counting the consumer's cost (the end of the warm-up).
func (c *consumer) mark() {
	if c == nil || c.p == nil {
		return
	}
	c.p.Mark()
	c.mu.Lock()
	c.marked = time.Now()
	c.mu.Unlock()
}

// finish waits until the consumer has taken what the load sent (end: when the load ended), then
// stops it; it must say its total.
func (c *consumer) finish(ctx context.Context, end time.Time) error {
	if c == nil {
		return nil
	}
	if err := c.waitIdle(ctx, end); err != nil {
		return err
	}
	c.stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total < 0 {
		return fmt.Errorf("cachequeue: the consumer %s said no \"total N\" when stopped: %s; log %s", c.name(), c.p.Tail(), c.p.LogPath())
	}
	return nil
}

// waitIdle waits until the consumer has run dry after end, or was idle at end and still is a
// moment later. It fails when the consumer exits, or is busy but silent for too long.
func (c *consumer) waitIdle(ctx context.Context, end time.Time) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		c.mu.Lock()
		idle, idleAt, heard := c.idle, c.idleAt, c.heardAt
		c.mu.Unlock()
		now := time.Now()
		switch {
		case idle && (idleAt.After(end) || now.Sub(end) >= settle):
			return nil
		case !idle && now.Sub(heard) > silence:
			return fmt.Errorf("cachequeue: the consumer %s said nothing for %v after the load: %s; log %s", c.name(), silence, c.p.Tail(), c.p.LogPath())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.p.Done():
			return fmt.Errorf("cachequeue: the consumer %s exited during the run: %s; log %s", c.name(), c.p.Tail(), c.p.LogPath())
		case <-tick.C:
		}
	}
}

// stop stops the consumer if it runs; safe on nil and more than once.
func (c *consumer) stop() {
	if c == nil || c.p == nil {
		return
	}
	_ = c.p.Stop()
}

// report returns what the record says of the consumer, end being when the load ended; nil for a
// nil consumer.
func (c *consumer) report(end time.Time) *ConsumerRecord {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &ConsumerRecord{Command: c.name(), Received: max(c.total, 0)}
	if len(c.points) == 0 {
		return r
	}
	last := c.points[len(c.points)-1].at
	from := c.marked
	if from.IsZero() {
		from = c.points[0].at
	}
	if span := last.Sub(from).Seconds(); span > 0 {
		r.DrainRate = float64(r.Received-receivedAt(c.points, from)) / span
	}
	r.LagMessages = max(r.Received-receivedAt(c.points, end), 0)
	r.LagSeconds = max(last.Sub(end).Seconds(), 0)
	return r
}

// receivedAt returns how many messages had been received at t, interpolated between the
// progress lines around it (0 before the first).
func receivedAt(points []point, t time.Time) int64 {
	for i, p := range points {
		if p.at.After(t) {
			if i == 0 {
				return 0
			}
			prev := points[i-1]
			share := float64(t.Sub(prev.at)) / float64(p.at.Sub(prev.at))
			return prev.n + int64(share*float64(p.n-prev.n))
		}
	}
	if len(points) == 0 {
		return 0
	}
	return points[len(points)-1].n
}

// process stops the consumer if it still runs and returns its record entry: a sut process of its
// own (the report counts every sut process as the impl's) on the impl's CPUs, its cost from the
// end of the warm-up on, its share of a core over the time it worked: to the load's end (end), or to its last
// message if later.
func (c *consumer) process(end time.Time) []result.Process {
	if c == nil || c.p == nil {
		return nil
	}
	c.stop()
	c.mu.Lock()
	if n := len(c.points); n > 0 && c.points[n-1].at.After(end) {
		end = c.points[n-1].at
	}
	var wall time.Duration // 0 when the warm-up never ended: no share of a core
	if !c.marked.IsZero() {
		wall = end.Sub(c.marked)
	}
	c.mu.Unlock()
	p := result.NewProcess(c.name(), "sut", c.p.PID(), c.p.Usage(), wall)
	p.CPUs = c.cpus.String()
	return []result.Process{p}
}

// storeBeside returns the store a run reads with consumer c beside the impl (nil: none): the
// route's, except ZeroMQ's with a consumer, which binds the endpoint and takes every message, so
// iobench must not bind it too: it reads nothing there, and all is what the consumer received.
func storeBeside(ctx context.Context, route string, a Addrs, c *consumer) (store, error) {
	if c != nil && route == "/queue/zmq" {
		return consumed{}, nil
	}
	return storeOf(ctx, route, a)
}

// consumed is the store of a route whose consumer took every message: nothing to read apart.
type consumed struct{}

func (consumed) before(context.Context) error         { return nil }
func (consumed) after(context.Context) (int64, error) { return 0, nil }
func (consumed) describe() string                     { return "what the consumer received" }
func (consumed) close()                               {}
