package relay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what a relay does: where it connects and what it adds downstream.
type Config struct {
	Upstream string        // the service's host:port
	Latency  time.Duration // L, added to each chunk flowing downstream
	Jitter   time.Duration // each chunk's delay is uniform in [L-Jitter, L+Jitter], never below 0
}

// Check refuses a config the relay cannot run.
func (c Config) Check() error {
	switch {
	case c.Upstream == "":
		return errors.New("no upstream address; give the service's host:port")
	case c.Latency < 0 || c.Jitter < 0:
		return fmt.Errorf("latency %v and jitter %v must not be negative", c.Latency, c.Jitter)
	}
	return nil
}

// Stats are a relay's counts since it started; two snapshots subtract (Sub).
type Stats struct {
	Conns int64         `json:"conns"`    // connections that sent something (not a mere check that the port is open)
	Turns int64         `json:"turns"`    // changes of direction from upstream to downstream
	Added time.Duration `json:"added_ns"` // time the first chunks of the turns were held, both ways
	Up    int64         `json:"bytes_up"`
	Down  int64         `json:"bytes_down"`
	// Peak is the most turns outstanding at once (asked, their answer not yet begun) since the
	// previous Stats: how many of the SUT's workers waited on the service together.
	Peak int64 `json:"peak_in_flight"`
}

// Sub returns s minus an earlier snapshot; the peak is s's own.
func (s Stats) Sub(o Stats) Stats {
	return Stats{s.Conns - o.Conns, s.Turns - o.Turns, s.Added - o.Added, s.Up - o.Up, s.Down - o.Down, s.Peak}
}

// AddedPerTurn is the latency added per turn, in microseconds; 0 without turns.
func (s Stats) AddedPerTurn() float64 {
	if s.Turns == 0 {
		return 0
	}
	return float64(s.Added.Microseconds()) / float64(s.Turns)
}

// Relay relays the connections it accepts to Config.Upstream. Its methods are safe for concurrent
// use.
type Relay struct {
	cfg                 Config
	conns, turns, added atomic.Int64
	up, down            atomic.Int64
	inFlight, peak      atomic.Int64 // turns outstanding now, and their most since the last Stats
	wake                waker
	wg                  sync.WaitGroup
}

// New returns a relay for cfg.
func New(cfg Config) (*Relay, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return &Relay{cfg: cfg}, nil
}

// Stats returns the counts so far, and the peak of outstanding turns since the previous call,
// which it starts again from those outstanding now.
func (r *Relay) Stats() Stats {
	return Stats{Conns: r.conns.Load(), Turns: r.turns.Load(), Added: time.Duration(r.added.Load()),
		Up: r.up.Load(), Down: r.down.Load(), Peak: r.peak.Swap(r.inFlight.Load())}
}

// turnBegan counts a turn outstanding, and the peak.
func (r *Relay) turnBegan() {
	n := r.inFlight.Add(1)
	for p := r.peak.Load(); n > p && !r.peak.CompareAndSwap(p, n); p = r.peak.Load() {
	}
}

// Serve accepts connections on ln until ctx ends or ln fails, then closes ln and returns once
// every connection it relayed has ended.
func (r *Relay) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer r.wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		r.wg.Go(func() { r.relay(ctx, c) })
	}
}

// relay joins one client connection to a new connection to the upstream until either ends.
func (r *Relay) relay(ctx context.Context, client net.Conn) {
	defer client.Close()
	var d net.Dialer
	svc, err := d.DialContext(ctx, "tcp", r.cfg.Upstream)
	if err != nil {
		return // the client sees its connection closed, as it would see a refused one
	}
	defer svc.Close()
	stop := context.AfterFunc(ctx, func() { client.Close(); svc.Close() })
	defer stop()
	l := &link{r: r, client: client, svc: svc, queue: make(chan chunk, queueLen)}
	var wg sync.WaitGroup
	wg.Go(l.upstream)
	wg.Go(l.downstream)
	wg.Go(l.deliver)
	wg.Wait()
	if l.asked.Load() { // a turn the service never answered
		r.inFlight.Add(-1)
	}
}

// queueLen bounds the chunks waiting for their time on one connection; a full queue stops
// reading from the service, so TCP pushes back on it.
const queueLen = 256

// chunkSize is the most one read takes.
const chunkSize = 32 << 10

var buffers = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// chunk is data read from the service, waiting to be written to the client at due.
type chunk struct {
	buf     *[]byte
	n       int
	read    time.Time // when it reached the relay's socket (the kernel's stamp where there is one)
	due     time.Time
	endTurn bool // the first chunk of an answer: it ends a turn
}

// link is one relayed connection.
type link struct {
	r           *Relay
	client, svc net.Conn
	queue       chan chunk
	pending     atomic.Int64 // chunks queued or being written by deliver
	failed      atomic.Bool  // a write to the client failed: the rest is dropped
	asked       atomic.Bool  // upstream data passed since the last answer began
}

// upstream passes what the client writes to the service at once; the first chunk after an
// answer begins a turn.
func (l *link) upstream() {
	defer closeWrite(l.svc)
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	in := newStampedReader(l.client)
	for used := false; ; {
		n, read, err := in.Read(*buf)
		if n > 0 {
			if !used {
				used = true
				l.r.conns.Add(1)
			}
			first := !l.asked.Swap(true)
			if first {
				l.r.turnBegan()
			}
			if _, werr := l.svc.Write((*buf)[:n]); werr != nil {
				l.abort()
				return
			}
			l.r.up.Add(int64(n))
			if first {
				l.r.added.Add(int64(time.Since(read)))
			}
		}
		if err != nil {
			return
		}
	}
}

// downstream reads what the service writes and queues it with its due time; a chunk due at once
// with nothing before it still waiting it writes itself, sparing deliver's thread a wake-up.
func (l *link) downstream() {
	defer close(l.queue)
	in := newStampedReader(l.svc)
	for {
		buf := buffers.Get().(*[]byte)
		n, read, err := in.Read(*buf)
		if n > 0 {
			c := chunk{buf: buf, n: n, read: read, endTurn: l.asked.Swap(false)}
			d := l.r.delay()
			c.due = c.read.Add(d)
			if c.endTurn {
				l.r.turns.Add(1)
				l.r.inFlight.Add(-1)
			}
			if d == 0 && l.pending.Load() == 0 { // deliver is idle, and only this goroutine gives it work
				l.pass(c)
			} else {
				l.pending.Add(1)
				l.queue <- c
			}
		} else {
			buffers.Put(buf)
		}
		if err != nil {
			return
		}
	}
}

// deliver writes each queued chunk to the client at its due time, in order, on a thread that
// sleeps precisely (waker), taken at the first chunk it must wait for; after a failed write it
// drops the rest.
func (l *link) deliver() {
	defer closeWrite(l.client)
	release, locked := func() {}, false
	defer func() { release() }()
	for c := range l.queue {
		if !locked && time.Until(c.due) > 0 {
			release, locked = preciseThread(), true
		}
		if !l.failed.Load() {
			l.r.wake.until(c.due)
		}
		l.pass(c)
		l.pending.Add(-1)
	}
}

// pass writes c to the client and counts it; after a failed write it drops c and all after.
func (l *link) pass(c chunk) {
	defer buffers.Put(c.buf)
	if l.failed.Load() {
		return
	}
	if _, err := l.client.Write((*c.buf)[:c.n]); err != nil {
		l.failed.Store(true)
		l.abort()
		return
	}
	l.r.down.Add(int64(c.n))
	if c.endTurn {
		l.r.added.Add(int64(time.Since(c.read)))
	}
}

// abort closes both sides, which ends the other goroutines of the link.
func (l *link) abort() {
	l.client.Close()
	l.svc.Close()
}

// delay is one chunk's delay: L, plus or minus the jitter.
func (r *Relay) delay() time.Duration {
	d := r.cfg.Latency
	if j := r.cfg.Jitter; j > 0 {
		d += time.Duration(rand.Int64N(int64(2*j)+1)) - j
	}
	return max(d, 0)
}

// closeWrite half-closes c when it can (the peer sees EOF after what was written), else closes it.
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	c.Close()
}
