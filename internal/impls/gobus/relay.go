package gobus

import (
	"slices"
	"sync"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// relay lets a command begin its transaction in the round trip of another command's COMMIT, on
// that command's connection, instead of in a round trip of its own: a handler whose INSERT is
// done opens a leg while it publishes its event, and a handler that takes a command meanwhile
// joins the oldest open leg rather than sending BEGIN and its INSERT alone. The leg's handler
// then sends COMMIT, BEGIN and the joiner's INSERT in one write (backend.Chainer) and hands the
// transaction over. Each command still has its own transaction, its event published after its
// INSERT and before its COMMIT, its ack after the COMMIT; a PostgreSQL round trip, the
// consumer's dearest cost (a loopback write that wakes the server), is saved for each join.
type relay struct {
	mu   sync.Mutex
	open []*leg // legs without a successor yet, oldest first
}

// leg is a handler's transaction, between its INSERT and its COMMIT, that another command may
// join.
type leg struct {
	next *successor // the command that joined, if any; guarded by relay.mu
}

// successor is a command waiting for the transaction of the leg it joined.
type successor struct {
	m    busproto.Message
	tx   backend.Tx    // the transaction, m's row inserted, when err is nil
	err  error         // why m's transaction could not begin in the leg's commit
	done chan struct{} // receives once tx or err is set
}

// newSuccessor returns a handler's successor, reused for each command it joins to a leg.
func newSuccessor() *successor { return &successor{done: make(chan struct{}, 1)} }

// hand gives s its transaction, or the error that ended it.
func (s *successor) hand(tx backend.Tx, err error) {
	s.tx, s.err = tx, err
	s.done <- struct{}{}
}

// openLeg makes l joinable until closeLeg.
func (r *relay) openLeg(l *leg) {
	r.mu.Lock()
	l.next = nil
	r.open = append(r.open, l)
	r.mu.Unlock()
}

// closeLeg ends l's joinable time and returns the command that joined it, if any.
func (r *relay) closeLeg(l *leg) *successor {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.open, l); i >= 0 {
		r.open = slices.Delete(r.open, i, i+1)
	}
	return l.next
}

// join makes s, for message m, the successor of the oldest open leg and reports whether there was
// one; s then waits for its transaction on s.done.
func (r *relay) join(s *successor, m *busproto.Message) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) == 0 {
		return false
	}
	l := r.open[0]
	r.open = slices.Delete(r.open, 0, 1)
	s.m, s.tx, s.err = *m, nil, nil
	l.next = s
	return true
}
