package publish

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// dial opens one AMQP connection named for the broker's connection list.
func dial(url, name string) (*amqp091.Connection, error) {
	cfg := amqp091.Config{Properties: amqp091.NewConnectionProperties(), Dial: amqp091.DefaultDial(10 * time.Second)}
	cfg.Properties.SetClientConnectionName(name)
	return amqp091.DialConfig(url, cfg)
}

// publisher is one goroutine publishing on a channel of its own. The hot path reuses one body
// buffer and one Publishing; counters are atomics read once a second by the observer.
type publisher struct {
	idx     int
	ch      *amqp091.Channel
	cfg     *Config
	quota   int64  // messages to send; <0 until stopped
	first   uint64 // first sequence number
	stride  uint64 // step between sequence numbers
	stop    *atomic.Bool
	written atomic.Int64
	acked   atomic.Int64
	nacked  atomic.Int64
	lastAck atomic.Int64 // Unix ns of the latest confirm
	endNS   int64        // Unix ns after the last write
	slots   chan struct{}
	confirm chan amqp091.Confirmation
	closed  chan *amqp091.Error
	ackDone chan struct{} // closed when amqp091 closed the confirm channel
	final   atomic.Int64  // messages written, once run has returned; -1 before
	allIn   chan struct{} // closed when every written message is confirmed or nacked
	allOnce sync.Once
	err     error
}

// open sets the publisher's channel up (confirm mode and its listener) before the clock starts.
func (p *publisher) open(conn *amqp091.Connection) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("publisher %d: open channel: %w", p.idx, err)
	}
	p.ch = ch
	p.closed = ch.NotifyClose(make(chan *amqp091.Error, 1))
	if p.cfg.Confirm > 0 {
		if err := ch.Confirm(false); err != nil {
			return fmt.Errorf("publisher %d: enable confirms: %w", p.idx, err)
		}
		p.slots = make(chan struct{}, p.cfg.Confirm)
		p.confirm = ch.NotifyPublish(make(chan amqp091.Confirmation, p.cfg.Confirm+1))
		p.ackDone = make(chan struct{})
		p.allIn = make(chan struct{})
		go p.listen()
	}
	return nil
}

// listen counts the broker's confirms (amqp091 delivers one per message, in order, also for
// multiple acks) and frees a slot for each.
func (p *publisher) listen() {
	defer close(p.ackDone)
	for c := range p.confirm {
		if c.Ack {
			p.acked.Add(1)
		} else {
			p.nacked.Add(1)
		}
		p.lastAck.Store(time.Now().UnixNano())
		select {
		case <-p.slots:
		default:
		}
		p.checkAll()
	}
}

// checkAll closes allIn once run has returned and every message it wrote is settled.
func (p *publisher) checkAll() {
	if f := p.final.Load(); f >= 0 && p.acked.Load()+p.nacked.Load() >= f {
		p.allOnce.Do(func() { close(p.allIn) })
	}
}

// run publishes until the quota is sent or stop is set. It waits for start first.
func (p *publisher) run(ctx context.Context, start <-chan struct{}) {
	defer func() {
		p.endNS = time.Now().UnixNano()
		p.final.Store(p.written.Load())
		if p.allIn != nil {
			p.checkAll()
		}
	}()
	select {
	case <-start:
	case <-ctx.Done():
		return
	}
	mode := amqp091.Transient
	if p.cfg.Persistent {
		mode = amqp091.Persistent
	}
	msg := amqp091.Publishing{ContentType: "application/octet-stream", DeliveryMode: mode}
	if p.cfg.Body != BodyBinary {
		msg.ContentType = "application/json"
	}
	buf := newBody(p.cfg.Body, p.cfg.Size)
	seq := p.first
	for n := int64(0); p.quota < 0 || n < p.quota; n++ {
		if p.stop.Load() || ctx.Err() != nil {
			break
		}
		if p.slots != nil {
			select {
			case p.slots <- struct{}{}:
			case <-ctx.Done():
				return
			case e := <-p.closed:
				p.err = closeErr(p.idx, e)
				return
			}
		}
		msg.Body = encode(buf, p.cfg.Body, seq, p.idx, time.Now())
		if err := p.ch.PublishWithContext(ctx, "", p.cfg.Queue, false, false, msg); err != nil {
			p.err = p.fail(err)
			break
		}
		p.written.Add(1)
		seq += p.stride
	}
}

// fail adds the channel's close reason to a publish error.
func (p *publisher) fail(err error) error {
	select {
	case e := <-p.closed:
		if e != nil {
			return closeErr(p.idx, e)
		}
	default:
	}
	return fmt.Errorf("publisher %d: publish: %w", p.idx, err)
}

func closeErr(idx int, e *amqp091.Error) error {
	if e == nil {
		return fmt.Errorf("publisher %d: channel closed", idx)
	}
	return fmt.Errorf("publisher %d: channel closed by the broker: %s", idx, e.Reason)
}

// awaitConfirms waits until every written message is confirmed or nacked; false when the
// deadline or done came first, or the channel closed with confirms missing.
func (p *publisher) awaitConfirms(deadline, done <-chan struct{}) bool {
	if p.allIn == nil {
		return true
	}
	select {
	case <-p.allIn:
		return true
	case <-p.ackDone:
		return p.acked.Load()+p.nacked.Load() >= p.final.Load()
	case <-deadline:
	case <-done:
	}
	return false
}

// close closes the channel; the confirm listener ends when amqp091 closes its channel.
func (p *publisher) close() {
	if p.ch != nil {
		if err := p.ch.Close(); err != nil && !errors.Is(err, amqp091.ErrClosed) && p.err == nil {
			p.err = fmt.Errorf("publisher %d: close: %w", p.idx, err)
		}
	}
}
