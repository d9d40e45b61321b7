package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// conn is what the engine needs of a connection; *httpload.Conn implements it. Abort may be
// called while Do runs in another goroutine; Close only by the connection's own goroutine.
type conn interface {
	Do(req []byte, deadline time.Time) (httpload.Response, error)
	Abort() error
	Close() error
}

// Snapshot is the state of a run after one more second, for progress displays.
type Snapshot struct {
	Elapsed   time.Duration // of the measured phase
	Total     time.Duration // planned measured phase (0 with -n)
	Completed int64         // responses so far
	Planned   int64         // -n, or 0
	RateNow   float64       // responses per second in the last second
	P99       float64       // microseconds, so far
	Errors    int64         // so far
	// LatencyAt returns the p-th percentile of the latency so far, in microseconds; it may be
	// called during OnSecond only.
	LatencyAt func(p float64) float64
}

// Result is what a run measured. Uncorrected and Lag are nil in a closed loop.
type Result struct {
	Start       time.Time     // when the measured phase began
	Elapsed     time.Duration // length of the measured phase
	Interrupted bool
	Latency     *stats.Histogram
	Uncorrected *stats.Histogram
	Lag         *stats.Histogram
	Completed   int64 // responses received, whatever their status
	Succeeded   int64
	Errors      map[string]int64
	Late        int64
	// LateFree and ConnWaits split Late (open loop): requests sent late while a connection was
	// free, the generator's own delay, and those for which no connection had room at their
	// intended start (or whose connection was still connecting).
	LateFree, ConnWaits int64
	// Early counts the responses that came in the measured phase to requests of the warm-up
	// (not counted elsewhere): with the counted ones, what the server answered in the phase.
	Early int64
	// Scheduled counts, in an open loop, the intended starts of the measured phase, sent or
	// not: the requests the schedule offered (R x d evenly; a Poisson count of that mean).
	Scheduled int64
	BytesRead int64
	Series    []result.Point
	Rates     []float64 // per thread, per second
	Threads   []result.ThreadStats
	// Timing is the server's own handling time of the counted successes (Config.Timing), nil
	// when not asked; Untimed counts the successes that did not carry it.
	Timing  *stats.Histogram
	Untimed int64
	// Answered counts every response received over the whole run, warm-up and drain included,
	// whatever its status; Unanswered the requests written that got none (an error after the
	// connect), which may or may not have reached the server. A server's own count of what it
	// was asked lies between Answered and Answered + Unanswered.
	Answered, Unanswered int64
	// TLS is what opening the connections of an https run cost; nil for plain http.
	TLS *TLSResult
	// HTTP2 is what an HTTP/2 run's connections exchanged; nil for HTTP/1.1.
	HTTP2 *result.HTTP2
	// Engine is the engine that ran (EngineLoop or EngineGoroutine); EngineNote says why it is
	// not the one asked for, or is empty.
	Engine, EngineNote string
	// Coalesced reports that the event loop coalesced its wake-ups and timed answers by the
	// kernel's receive timestamps (an open loop of coalesceRate per thread or more, or a closed
	// one with coalesceDeep requests in flight per thread or more: see coalesces).
	Coalesced bool
}

// run is the shared state of one Run.
type run struct {
	cfg       Config
	clock     Clock
	start     time.Time // load begins (warm-up included)
	measure   time.Time // measured phase begins
	end       time.Time // measured phase ends (far future with -n)
	groups    []*group
	slots     []slot
	remaining atomic.Int64 // -n tickets left
	stopped   atomic.Bool
	wakeups   []func() // the event loops' wake-ups, called by stop
	h2r       *h2req   // the request as HTTP/2 frames (Config.HTTP2)
	// pacer is the goroutine engine's open-loop schedule, one for the run: each request goes to
	// whichever connection comes free first, so that a request waits for a connection only when
	// every one is busy (the event loop keeps one such schedule per thread).
	pacer *Pacer
	// pacers are every share of the schedule, for Result.Scheduled.
	pacersMu sync.Mutex
	pacers   []*Pacer
}

// slot holds a connection's live socket so that a stop can close it and unblock a pending read,
// and, once the connection has ended, its tally of answered and unanswered requests.
type slot struct {
	mu                   sync.Mutex
	c                    conn
	answered, unanswered int64
}

func (s *slot) set(c conn) {
	s.mu.Lock()
	s.c = c
	s.mu.Unlock()
}

// release closes the connection; only its own goroutine calls it.
func (s *slot) release() {
	s.mu.Lock()
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
	s.mu.Unlock()
}

// abort unblocks the connection's pending I/O from another goroutine.
func (s *slot) abort() {
	s.mu.Lock()
	if s.c != nil {
		s.c.Abort()
	}
	s.mu.Unlock()
}

// Run drives load as cfg says until the duration or request count is reached or ctx ends; a
// cancelled ctx still returns the partial result, marked Interrupted.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.ConnectWait <= 0 {
		cfg.ConnectWait = 50 * time.Millisecond
	}
	kind, note := pickEngine(cfg)
	if kind != EngineLoop && (cfg.depth() > 1 || cfg.HTTP2) {
		return nil, fmt.Errorf("--pipeline and HTTP/2 need the event loop, which cannot run this: %s", note)
	}
	procs := cfg.Threads
	if kind == EngineLoop {
		// Each loop holds its P through epoll_wait until the scheduler takes it back (20 µs to
		// 10 ms later), so one more P serves the ticker and whatever else the process runs.
		procs++
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	r := newRun(cfg)
	if cfg.HTTP2 {
		var err error
		if cfg.TLS != nil {
			r.cfg.TLS = httpload.OfferH2(cfg.TLS)
		}
		if r.h2r, err = newH2Req(&cfg); err != nil {
			return nil, err
		}
	}
	res, err := r.execute(ctx, kind)
	if err != nil && kind == EngineLoop && (cfg.depth() > 1 || cfg.HTTP2) {
		return nil, fmt.Errorf("--pipeline and HTTP/2 need the event loop, which could not start: %v", err)
	}
	if err != nil && kind == EngineLoop {
		kind, note = EngineGoroutine, fmt.Sprintf("engine: the event loop could not start (%v); the goroutine engine ran instead", err)
		res, err = r.execute(ctx, kind)
	}
	if res != nil {
		res.Engine, res.EngineNote = kind, note
		res.Coalesced = kind == EngineLoop && coalesces(&cfg)
	}
	return res, err
}

func newRun(cfg Config) *run {
	r := &run{cfg: cfg, clock: cfg.Clock, slots: make([]slot, cfg.Connections)}
	for i := 0; i < cfg.Threads; i++ {
		r.groups = append(r.groups, newGroup(cfg.Rate > 0, cfg.Timing != "", cfg.TLS != nil))
	}
	r.start = r.clock.Now()
	if !cfg.StartAt.IsZero() {
		r.start = cfg.StartAt.Add(-cfg.Warmup)
	}
	r.measure = r.start.Add(cfg.Warmup)
	if cfg.Requests > 0 {
		r.end = r.measure.Add(100 * 365 * 24 * time.Hour)
		r.remaining.Store(cfg.Requests)
	} else {
		r.end = r.measure.Add(cfg.Duration)
	}
	return r
}

func (r *run) execute(ctx context.Context, kind string) (*Result, error) {
	var finished <-chan struct{}
	if kind == EngineLoop {
		var err error
		if finished, err = r.executeLoop(); err != nil {
			return nil, err
		}
	} else {
		finished = r.startConnections()
	}
	series := newTicker(r)
	interrupted := r.wait(ctx, finished, series)
	res := r.collect(series)
	res.Interrupted = interrupted
	return res, nil
}

// sharePacer returns the pacer of count of the run's connections, first, first+stride, ...: their
// share of its schedule, evenly spaced or Poisson (Config.Arrivals).
func (r *run) sharePacer(first, stride, count int) *Pacer {
	p := newSharePacer(r.clock, r.start.Add(r.cfg.Phase), r.cfg.Rate, first, stride, count, r.cfg.Connections)
	if r.cfg.Arrivals == ArrivalsPoisson {
		p.usePoisson(r.cfg.Seed, r.cfg.Stream)
	}
	r.pacersMu.Lock()
	r.pacers = append(r.pacers, p)
	r.pacersMu.Unlock()
	return p
}

// scheduled is Result.Scheduled: what every share of the schedule offered in the measured phase.
func (r *run) scheduled() int64 {
	r.pacersMu.Lock()
	defer r.pacersMu.Unlock()
	var n int64
	for _, p := range r.pacers {
		n += p.Scheduled(r.measure, r.end)
	}
	return n
}

// startConnections starts the goroutine engine: one goroutine per connection.
func (r *run) startConnections() <-chan struct{} {
	var wg sync.WaitGroup
	if r.cfg.Rate > 0 {
		n := r.cfg.Connections
		r.pacer = r.sharePacer(0, 1, n)
	}
	for k := range r.slots {
		g := r.groups[k%len(r.groups)] // round robin: remainders spread one per group
		g.conns++
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			r.connection(k, g)
		}(k)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	return finished
}

// wait blocks until the load finishes, the duration is over or ctx ends, ticking every second.
func (r *run) wait(ctx context.Context, finished <-chan struct{}, t *ticker) (interrupted bool) {
	warm := time.NewTimer(time.Until(r.measure))
	defer warm.Stop()
	select {
	case <-warm.C:
	case <-finished:
		if !r.clock.Now().Before(r.measure) { // a run shorter than the timer's latency
			t.beginAt(r.measure)
		}
		return false
	case <-ctx.Done():
		r.stop(finished)
		return true
	}
	t.begin()
	sec := time.NewTicker(time.Second)
	defer sec.Stop()
	deadline := time.NewTimer(time.Until(r.end))
	defer deadline.Stop()
	var drained <-chan time.Time // while draining: fires when those in flight may take no longer
	for {
		select {
		case <-sec.C:
			t.tick()
		case <-deadline.C:
			if !r.cfg.Drain {
				r.stop(finished)
				return false
			}
			// No request starts after the deadline; a request in flight has its socket deadline
			// within 1.5 timeouts, so by then it has finished or failed by itself.
			grace := time.NewTimer(r.cfg.Timeout + r.cfg.Timeout/2 + 100*time.Millisecond)
			defer grace.Stop()
			drained = grace.C
		case <-drained:
			r.stop(finished)
			return false
		case <-finished:
			return false
		case <-ctx.Done():
			r.stop(finished)
			return true
		}
	}
}

// stop ends every connection, closing sockets so that pending reads return at once.
func (r *run) stop(finished <-chan struct{}) {
	r.stopped.Store(true)
	for i := range r.slots {
		r.slots[i].abort()
	}
	for _, wake := range r.wakeups {
		wake()
	}
	<-finished
}

// connection is the loop of one connection: closed loop or paced.
func (r *run) connection(k int, g *group) {
	pacer := r.pacer
	if !r.cfg.StartAt.IsZero() && !r.sleepUntil(r.start) {
		return
	}
	s := &r.slots[k]
	var c conn
	defer s.release()
	var answered, unanswered int64 // kept locally: the hot path touches no shared memory for them
	defer func() {
		s.mu.Lock()
		s.answered, s.unanswered = answered, unanswered
		s.mu.Unlock()
	}()
	stop := r.stopped.Load
	var dl deadline
	var free time.Time // when c could last take a request: after the last answer or the dial
	for !stop() {
		var intended, sent time.Time
		counted := true
		if pacer != nil {
			var ok bool
			if intended, ok = pacer.Next(r.end, stop); !ok {
				return
			}
			counted = !intended.Before(r.measure)
		} else {
			sent = r.clock.Now()
			if !sent.Before(r.end) {
				return
			}
			counted = !sent.Before(r.measure)
			if counted && r.cfg.Requests > 0 && r.remaining.Add(-1) < 0 {
				return
			}
		}
		if c == nil {
			var err error
			var setup httpload.Setup
			if c, setup, err = r.dial(); err != nil {
				c = nil
				r.fail(g, counted, intended, 0)
				r.clock.Sleep(r.cfg.ConnectWait)
				continue
			}
			s.set(c)
			g.opened(setup)
			free = r.clock.Now()
			// Dialing took time: read the clock again, so that a closed loop's latency, as wrk's,
			// starts at the write, after the connect and the TLS handshake (recorded apart).
			sent = time.Time{}
		}
		if sent.IsZero() {
			sent = r.clock.Now()
		}
		if intended.IsZero() {
			intended = sent
		}
		waited := free.Sub(intended) > lateAfter
		keep, ok := r.request(c, g, outcome{intended: intended, sent: sent, waited: waited, counted: counted}, dl.next(sent, r.cfg.Timeout))
		free = r.clock.Now()
		if ok {
			answered++
		} else {
			unanswered++
		}
		if !keep {
			s.release()
			c = nil
		}
	}
}

// sleepUntil waits for t in naps, so that a stop is noticed; it reports false when stopped.
func (r *run) sleepUntil(t time.Time) bool {
	for {
		if r.stopped.Load() {
			return false
		}
		wait := t.Sub(r.clock.Now())
		if wait <= 0 {
			return true
		}
		r.clock.Sleep(min(wait, maxNap))
	}
}

// deadline is a connection's socket deadline. Moving it costs a runtime timer update, so it is
// moved only when less than one timeout is left, to 1.5 timeouts ahead: a response slower than
// the timeout is still classified by its measured latency, and a silent server is given up on
// within 1.5 timeouts.
type deadline struct{ at time.Time }

func (d *deadline) next(sent time.Time, timeout time.Duration) time.Time {
	if d.at.Sub(sent) < timeout {
		d.at = sent.Add(timeout + timeout/2)
	}
	return d.at
}

// dial opens a connection: TCP, and TLS over it for an https target, each within the timeout.
func (r *run) dial() (conn, httpload.Setup, error) {
	if r.cfg.dial != nil {
		c, err := r.cfg.dial()
		return c, httpload.Setup{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*r.cfg.Timeout)
	defer cancel()
	c, err := httpload.DialTLS(ctx, r.cfg.Target.Addr, r.cfg.TLS, r.cfg.Timeout)
	if err != nil {
		return nil, httpload.Setup{}, err
	}
	if r.cfg.Expect.Body != nil {
		c.SetKeepBody(true)
	}
	if r.cfg.Timing != "" {
		c.CaptureHeader(TimingHeader)
	}
	return c, c.Setup(), nil
}

// request sends one request on c and records it; it reports whether c may be reused and whether
// a response came. A response slower than the timeout counts as a timeout error, as wrk counts
// it. With Drain, a response after the deadline to a request sent before it still counts.
func (r *run) request(c conn, g *group, o outcome, deadline time.Time) (keep, answered bool) {
	o.resp, o.err = c.Do(r.cfg.Request, deadline)
	o.done = r.clock.Now()
	return r.account(g, o)
}

// outcome is one request's end, as either engine saw it.
type outcome struct {
	resp                 httpload.Response
	err                  error
	intended, sent, done time.Time
	waited               bool // its connection was busy at its intended start (open loop)
	counted              bool
}

// account records one request's outcome in g, the same for both engines; it reports whether the
// connection may be reused and whether a response came.
func (r *run) account(g *group, o outcome) (keep, answered bool) {
	resp, err := o.resp, o.err
	answered = err == nil
	if r.stopped.Load() || (!r.cfg.Drain && r.cfg.Requests == 0 && o.done.After(r.end)) {
		return answered && resp.KeepAlive, answered // the run is over: neither count nor blame
	}
	if err == nil && !o.counted && !o.done.Before(r.measure) {
		g.early.Add(1)
	}
	if err != nil {
		r.complete(o, 0, socketClass(err))
		r.fail(g, o.counted, o.intended, socketClass(err))
		return false, false
	}
	if o.done.Sub(o.sent) > r.cfg.Timeout { // in before the socket deadline, but too late
		r.complete(o, resp.Status, classIndex(ErrTimeout))
		r.fail(g, o.counted, o.intended, classIndex(ErrTimeout))
		return resp.KeepAlive && r.cfg.KeepAlive, true
	}
	if o.counted {
		s := sample{intended: o.intended, sent: o.sent, done: o.done, waited: o.waited, bytes: resp.Read, class: -1, response: true}
		if ok, class := r.cfg.Expect.ok(resp.Status, resp.Body); !ok {
			s.class = classIndex(class)
		} else if r.cfg.Timing != "" {
			s.timed = 2
			if d, ok := ServerTiming(resp.Header, r.cfg.Timing); ok {
				s.timed, s.timing = 1, d
			}
		}
		r.complete(o, resp.Status, s.class)
		g.record(s)
	}
	return resp.KeepAlive && r.cfg.KeepAlive, true
}

// complete hands a counted request's end to Config.OnComplete, if set.
func (r *run) complete(o outcome, status, class int) {
	if f := r.cfg.OnComplete; f != nil && o.counted {
		c := Completion{Sent: o.sent, Done: o.done, Status: status}
		if class >= 0 {
			c.Class = ErrorClasses[class]
		}
		f(c)
	}
}

func (r *run) fail(g *group, counted bool, intended time.Time, class int) {
	if counted && !r.stopped.Load() {
		g.record(sample{intended: intended, class: class})
	}
}
