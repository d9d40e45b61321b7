package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/stats"
)

// group is one thread's share of the connections and their measurements. Its connections record
// under mu; the ticker takes the per-second figures under the same lock.
type group struct {
	mu        sync.Mutex
	conns     int
	open      bool
	corrected *stats.Histogram // from intended start (open loop) or from send (closed loop)
	uncorr    *stats.Histogram // open loop: from the actual send
	lag       *stats.Histogram // open loop: actual send minus intended start
	second    *stats.Histogram // corrected latency of the current second
	timing    *stats.Histogram // the server's own handling time (Config.Timing); nil when not asked
	tls       *TLSResult       // the connections opened over TLS; nil for plain http
	h2        h2stats          // what its HTTP/2 connections exchanged (event loop)
	untimed   int64            // successes without the Server-Timing metric
	completed int64            // responses received
	succeeded int64            // responses that met the expectations
	late      int64
	lateFree  int64        // late while a connection was free: the generator's own delay
	waits     int64        // late because no connection had room, or theirs was not yet open
	early     atomic.Int64 // responses in the measured phase to requests of the warm-up (Result.Early)
	bytes     int64
	errs      [nClasses]int64
	secDone   int64 // responses in the current second
	secErrs   int64 // errors in the current second
	rates     []float64
}

func newGroup(open, timing, tls bool) *group {
	g := &group{open: open, corrected: stats.NewHistogram(), second: stats.NewHistogram()}
	if tls {
		g.tls = newTLSResult()
	}
	if timing {
		g.timing = stats.NewHistogram()
	}
	if open {
		g.uncorr = stats.NewHistogram()
		g.lag = stats.NewHistogram()
	}
	return g
}

// sample is one finished request.
type sample struct {
	intended, sent, done time.Time
	waited               bool // its connection was busy (or not open) at its intended start
	bytes                int64
	class                int // -1 success, else an index into ErrorClasses
	response             bool
	timed                int8          // Config.Timing: 1 the response carried it, 2 it did not; 0 not asked
	timing               time.Duration // the server's handling time when timed is 1
}

func (g *group) record(s sample) {
	g.mu.Lock()
	if s.response {
		g.completed++
		g.secDone++
		g.bytes += s.bytes
		g.corrected.Record(s.done.Sub(s.intended))
		g.second.Record(s.done.Sub(s.intended))
		if g.open {
			g.uncorr.Record(s.done.Sub(s.sent))
			lag := s.sent.Sub(s.intended)
			g.lag.Record(lag)
			if lag > lateAfter {
				g.late++
				if s.waited {
					g.waits++
				} else {
					g.lateFree++
				}
			}
		}
	}
	switch s.timed {
	case 1:
		g.timing.Record(s.timing)
	case 2:
		g.untimed++
	}
	if s.class < 0 {
		g.succeeded++
	} else {
		g.errs[s.class]++
		g.secErrs++
	}
	g.mu.Unlock()
}

// tick moves the current second's figures out of g, adding its latencies to into.
func (g *group) tick(span time.Duration, into *stats.Sparse) (done, errs int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	done, errs = g.secDone, g.secErrs
	g.secDone, g.secErrs = 0, 0
	into.Add(g.second)
	g.second.Reset()
	if span >= 900*time.Millisecond { // a short last interval would understate the rate
		g.rates = append(g.rates, float64(done)/span.Seconds())
	}
	return done, errs
}

// addH2 adds a loop's HTTP/2 counts, once, when it ends.
func (g *group) addH2(s *h2stats) {
	g.mu.Lock()
	g.h2.add(s)
	g.mu.Unlock()
}
