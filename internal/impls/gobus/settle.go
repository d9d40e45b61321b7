package gobus

import (
	"io"
	"runtime"
	"sync"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// settler reports handled messages and acks them in batches, so that the handlers do not each
// pay one write(2) for a report line and another for an ack. A handler hands its message over
// (settle); the first one that finds no batch in progress yields once, so that handlers ready
// to run may finish and join, then writes the report lines of every message handed over so far
// in one write, acks them (backend.AckAll: one multiple ack where the broker allows), and goes
// on while more were handed over meanwhile. Every message
// is still reported before it is acked, and acked only once handled.
type settler struct {
	report io.Writer
	srcs   []backend.Consumer // where deliveries come from: commands, and events in the durable profile

	mu    sync.Mutex
	busy  bool   // a handler is writing and acking a batch
	next  *batch // handed over since
	spare *batch
}

// batch is what a settler writes and acks at once.
type batch struct {
	lines []byte
	acks  [][]backend.Delivery // by source
}

func newSettler(report io.Writer, srcs ...backend.Consumer) *settler {
	s := &settler{report: report, srcs: srcs}
	s.next, s.spare = s.newBatch(), s.newBatch()
	return s
}

func (s *settler) newBatch() *batch { return &batch{acks: make([][]backend.Delivery, len(s.srcs))} }

// settle hands over d, delivered by s.srcs[src] and handled as r says, to be reported and
// acked. It writes and acks batches itself when no other handler is doing so; the error is
// errReportLost or a failed ack, and ends the session.
func (s *settler) settle(src int, d backend.Delivery, r busproto.Report) error {
	s.mu.Lock()
	s.next.lines = busproto.AppendReport(s.next.lines, r)
	s.next.acks[src] = append(s.next.acks[src], d)
	if s.busy {
		s.mu.Unlock()
		return nil
	}
	s.busy = true
	for {
		s.mu.Unlock()
		runtime.Gosched() // handlers ready to run may finish now and join the batch
		s.mu.Lock()
		b := s.next
		if len(b.lines) == 0 {
			s.busy = false
			s.mu.Unlock()
			return nil
		}
		s.next, s.spare = s.spare, nil
		s.mu.Unlock()
		if err := s.write(b); err != nil {
			return err // busy stays set: the session ends, and the broker requeues what is unacked
		}
		s.mu.Lock()
		s.spare = b
	}
}

// write reports and acks one batch, and empties it.
func (s *settler) write(b *batch) error {
	if _, err := s.report.Write(b.lines); err != nil {
		return errReportLost
	}
	b.lines = b.lines[:0]
	for i, ds := range b.acks {
		if len(ds) == 0 {
			continue
		}
		if err := ackErr(backend.AckAll(s.srcs[i], ds)); err != nil {
			return err
		}
		clear(ds)
		b.acks[i] = ds[:0]
	}
	return nil
}
