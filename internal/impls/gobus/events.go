package gobus

import (
	"context"
	"runtime"
	"sync"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// sender is how a worker publishes its events.
type sender interface {
	Publish(ctx context.Context, body []byte) error
}

// publishers opens the event publishers of a session: one per worker when each publish waits
// for its confirm (durable), so that handlers wait in parallel; else one shared by all workers
// (as service-bus shared its channel), which measured 5-10% less CPU in RabbitMQ and the
// consumer than 80 channels, a publish being a mere socket write.
func (c *consumer) publishers(ctx context.Context, b backend.Broker) ([]backend.Publisher, error) {
	cfg := busproto.EventPublisher(c.cfg.Profile)
	n := c.workers
	if !cfg.Confirm {
		n = 1
	}
	pubs := make([]backend.Publisher, n)
	for i := range pubs {
		p, err := b.Publisher(ctx, cfg)
		if err != nil {
			for _, p := range pubs[:i] {
				p.Close()
			}
			return nil, err
		}
		pubs[i] = p
	}
	return pubs, nil
}

// senders returns what the workers publish through: their own publishers, or one shared by
// all, which batches their events.
func (c *consumer) senders(pubs []backend.Publisher) []sender {
	if len(pubs) == 1 && c.workers > 1 {
		return []sender{&sharedPublisher{pub: pubs[0], next: newEventBatch()}}
	}
	s := make([]sender, len(pubs))
	for i, p := range pubs {
		s[i] = p
	}
	return s
}

// sharedPublisher lets the workers share one Publisher and batches their events: an event joins
// the next batch, and the first worker to find no batch being sent yields once, so that the
// workers ready to run add theirs, then sends the batch (backend.PublishAll: one write on AMQP)
// and goes on while more were added. Every Publish still returns only once its event is
// written, so that each is out before its transaction commits.
type sharedPublisher struct {
	pub  backend.Publisher // not safe for concurrent use: only the worker sending uses it
	mu   sync.Mutex
	busy bool        // a worker is sending
	next *eventBatch // what the next send takes
}

// eventBatch is events sent at once, and how that went.
type eventBatch struct {
	bodies [][]byte
	done   chan struct{} // closed once sent; err is set then
	err    error
}

func newEventBatch() *eventBatch { return &eventBatch{done: make(chan struct{})} }

// Publish sends body with the batch it joins and returns once that batch is sent. body must
// not change until then.
func (s *sharedPublisher) Publish(ctx context.Context, body []byte) error {
	s.mu.Lock()
	mine := s.next
	mine.bodies = append(mine.bodies, body)
	if s.busy {
		s.mu.Unlock()
		<-mine.done
		return mine.err
	}
	s.busy = true
	for {
		s.mu.Unlock()
		runtime.Gosched() // workers ready to run may add their events now
		s.mu.Lock()
		b := s.next
		if len(b.bodies) == 0 {
			s.busy = false
			s.mu.Unlock()
			return mine.err
		}
		s.next = newEventBatch()
		s.mu.Unlock()
		b.err = backend.PublishAll(ctx, s.pub, b.bodies)
		close(b.done)
		s.mu.Lock()
	}
}
