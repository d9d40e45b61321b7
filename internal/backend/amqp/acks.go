package amqp

import (
	"errors"
	"fmt"
	"sync"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
)

// ackState is where a delivery stands between its arrival and the broker's knowing it settled.
type ackState uint8

const (
	unsettled ackState = iota // delivered, not yet acked or nacked
	held                      // acked by AckBatch, the broker not yet told
	told                      // the broker was told: acked or nacked
)

// acks tracks a consumer channel's deliveries in the order they came, so that a run of acked
// ones at the head goes out as one multiple ack (basic.ack covering every delivery up to its
// tag). Every ack and nack is sent under its lock, so that a multiple ack never covers a tag
// the broker already heard of (RabbitMQ closes the channel for an unknown tag).
type acks struct {
	ch      *amqp091.Channel
	sock    *corkConn // the connection's socket: a batch's acks go out in one write
	backlog int       // held acks allowed beyond the head's run

	mu    sync.Mutex
	queue []*delivery // not yet told, oldest first, from head on
	head  int
	held  int // deliveries of queue in state held
}

// add records a delivery as it arrives.
func (a *acks) add(d *delivery) {
	a.mu.Lock()
	a.queue = append(a.queue, d)
	a.mu.Unlock()
}

// one settles d alone with send (an ack or a nack).
func (a *acks) one(d *delivery, send func(*amqp091.Channel) error, what string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if d.state != unsettled {
		return ErrAlreadyAcknowledged
	}
	d.state = told
	if err := send(a.ch); err != nil {
		return fmt.Errorf("amqp: %s: %w", what, err)
	}
	a.trim()
	return nil
}

// batch acks ds: held, then told with the head's run as one multiple ack, and one by one when
// more than the backlog are held; all in one write.
func (a *acks) batch(ds []backend.Delivery) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, bd := range ds {
		d, ok := bd.(*delivery)
		switch {
		case !ok || d.acks != a:
			return errors.New("amqp: ack of a delivery from another consumer")
		case d.state != unsettled:
			return ErrAlreadyAcknowledged
		}
	}
	for _, bd := range ds {
		bd.(*delivery).state = held
	}
	a.held += len(ds)
	a.sock.cork()
	err := a.send(a.backlog)
	if uerr := a.sock.uncork(); err == nil && uerr != nil {
		err = fmt.Errorf("amqp: ack: %w", uerr)
	}
	return err
}

// flush tells the broker of every held ack.
func (a *acks) flush() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.send(0)
}

// send tells the broker of the held acks at the head of the queue in one multiple ack, then of
// the newest other held ones one by one until no more than keep are left, the oldest being the
// likeliest to join the head's run soon.
func (a *acks) send(keep int) error {
	var last *delivery
	for ; a.head < len(a.queue) && a.queue[a.head].state != unsettled; a.head++ {
		if d := a.queue[a.head]; d.state == held {
			last, d.state = d, told
			a.held--
		}
		a.queue[a.head] = nil
	}
	a.compact()
	if last != nil {
		if err := a.ch.Ack(last.tag, true); err != nil {
			return fmt.Errorf("amqp: ack: %w", err)
		}
	}
	for i := len(a.queue) - 1; a.held > keep; i-- {
		if d := a.queue[i]; d.state == held {
			d.state = told
			a.held--
			if err := a.ch.Ack(d.tag, false); err != nil {
				return fmt.Errorf("amqp: ack: %w", err)
			}
		}
	}
	return nil
}

// trim drops the told deliveries at the head of the queue.
func (a *acks) trim() {
	for ; a.head < len(a.queue) && a.queue[a.head].state == told; a.head++ {
		a.queue[a.head] = nil
	}
	a.compact()
}

// compact moves the queue to the front of its array once half of it is spent.
func (a *acks) compact() {
	if a.head < 64 || a.head < len(a.queue)/2 {
		return
	}
	n := copy(a.queue, a.queue[a.head:])
	clear(a.queue[n:])
	a.queue, a.head = a.queue[:n], 0
}
