package bus

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// tally accounts for every command and event by sequence number, from the consumer's report
// stream: how often each was handled, when first and last, and the end-to-end latency (command
// sent -> its event handled). One reader goroutine (the runner's, see read) feeds it at a time;
// the observer reads snapshots under the same lock.
type tally struct {
	mu   sync.Mutex
	n    int64
	sent []int64 // send time of each command, Unix ns; written by the fill before any reader runs
	cmd  []uint8 // times each command was reported, saturating at 255
	ev   []uint8 // times each event was reported, saturating at 255
	hist *stats.Histogram
	c    counts

	timeline  *fault.Timeline // each command's first report, for a fault's recovery; nil for none
	killAt    int64           // distinct commands at which the fault strikes; 0 for none
	trigger   chan struct{}   // closed when killAt is reached
	triggered bool
	complete  chan struct{} // closed when every command and event has been seen
	done      bool
}

// counts is a consistent snapshot of a tally.
type counts struct {
	cmdDistinct, cmdTotal int64
	evDistinct, evTotal   int64
	cmdRedelivered        int64 // command deliveries flagged as redelivered by the broker
	evRedelivered         int64
	bad                   int64 // messages the consumer could not decode
	failed                int64 // commands whose handler failed ("f"), redeliveries included
	unknown               int64 // reports with a seq outside 0..N-1
	firstCmd, lastCmd     int64 // Unix ns
	firstEv, lastEv       int64
}

func newTally(n int, killAt int64) *tally {
	return &tally{
		n:        int64(n),
		sent:     make([]int64, n),
		cmd:      make([]uint8, n),
		ev:       make([]uint8, n),
		hist:     stats.NewHistogram(),
		killAt:   killAt,
		trigger:  make(chan struct{}),
		complete: make(chan struct{}),
	}
}

// snapshot returns the counts now.
func (t *tally) snapshot() counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

// add accounts for one report other than ready.
func (t *tally) add(r busproto.Report) {
	switch r.Kind {
	case busproto.ReportReady:
		return
	case busproto.ReportBad:
		t.mu.Lock()
		t.c.bad++
		t.mu.Unlock()
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.Seq < 0 || r.Seq >= t.n {
		t.c.unknown++
		return
	}
	c := &t.c
	if r.Kind == busproto.ReportFailed {
		c.failed++
		return
	}
	if r.Kind == busproto.ReportCommand {
		c.cmdTotal++
		if r.Redelivered {
			c.cmdRedelivered++
		}
		if t.cmd[r.Seq] == 0 {
			c.cmdDistinct++
			if t.timeline != nil {
				t.timeline.Success(time.Unix(0, r.AtNS))
			}
		}
		t.cmd[r.Seq] = sat(t.cmd[r.Seq])
		first(&c.firstCmd, &c.lastCmd, r.AtNS)
		if !t.triggered && t.killAt > 0 && c.cmdDistinct >= t.killAt {
			t.triggered = true
			close(t.trigger)
		}
	} else {
		c.evTotal++
		if r.Redelivered {
			c.evRedelivered++
		}
		if t.ev[r.Seq] == 0 {
			c.evDistinct++
			t.hist.Record(time.Duration(r.AtNS - t.sent[r.Seq]))
		}
		t.ev[r.Seq] = sat(t.ev[r.Seq])
		first(&c.firstEv, &c.lastEv, r.AtNS)
	}
	if !t.done && c.cmdDistinct == t.n && c.evDistinct == t.n {
		t.done = true
		close(t.complete)
	}
}

func sat(v uint8) uint8 {
	if v == 255 {
		return v
	}
	return v + 1
}

// first widens the interval [*lo, *hi] to include at.
func first(lo, hi *int64, at int64) {
	if *lo == 0 || at < *lo {
		*lo = at
	}
	if at > *hi {
		*hi = at
	}
}

// read feeds the report lines of one consumer's stdout r into t until EOF and calls ready at
// its "ready" line; lines outside the protocol are ignored. It is the sut.StreamFunc the runner
// is given, so that the runner knows when the consumer is ready.
func (t *tally) read(r io.Reader, ready func()) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 && err == nil {
			switch rep, perr := busproto.ParseReport(line); {
			case perr != nil:
			case rep.Kind == busproto.ReportReady:
				ready()
			default:
				t.add(rep)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			// An over-long line: skip it to its end.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// missing returns how many commands and events were never seen, and how many were seen more
// than once (the extra sightings). Call it after every reader has finished.
func (t *tally) missing() (lostCmd, lostEv, dupCmd, dupEv int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.cmd {
		switch c := t.cmd[i]; {
		case c == 0:
			lostCmd++
		case c > 1:
			dupCmd += int64(c - 1)
		}
		switch e := t.ev[i]; {
		case e == 0:
			lostEv++
		case e > 1:
			dupEv += int64(e - 1)
		}
	}
	return
}
