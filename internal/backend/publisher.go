package backend

import (
	"context"
	"time"
)

// PublisherConfig says where and how a Publisher sends.
type PublisherConfig struct {
	Queue       string // destination queue (AMQP: default exchange routed by name, or Exchange+Key)
	Exchange    string // optional AMQP exchange; empty means the default exchange
	RoutingKey  string // optional; defaults to Queue
	Persistent  bool   // delivery mode 2 / file storage
	ContentType string // optional content type (AMQP property, NATS Content-Type header)
	// Confirm makes the broker confirm each publish (AMQP publisher confirms, JetStream
	// PubAcks). Without a Window, Publish returns only once its message is confirmed.
	Confirm bool
	// Window, with Confirm, lets up to Window publishes await their confirm at once: Publish
	// returns once its message is written, waiting first while Window messages are
	// unconfirmed; Counts and Flush tell what the broker made of them. 0 means no window.
	Window int
}

// Publisher sends messages. Publish, Ready and Flush are not safe for concurrent use (open one
// Publisher per goroutine); Counts may be called from any goroutine.
type Publisher interface {
	// Publish sends body. With Confirm and no Window it returns once the broker confirmed it
	// (a nack is an error); otherwise once it is written.
	Publish(ctx context.Context, body []byte) error
	// Ready returns once a Publish would not wait for a free confirm slot (at once without a
	// Window), so the caller can take its next message's send time after the wait. It fails
	// when ctx ends first, the Publisher is closed or the confirms can no longer come.
	Ready(ctx context.Context) error
	// Flush waits until the broker has confirmed or nacked every message published so far
	// (with Confirm; without, it returns at once where the backend has nothing in flight). It
	// fails when ctx ends first or the confirms can no longer come (channel or connection lost).
	Flush(ctx context.Context) error
	// Counts returns what this Publisher has written and, with Confirm, what the broker
	// confirmed so far: a consistent snapshot, Acked+Nacked <= Written and, with a Window,
	// Written-Acked-Nacked <= Window at every moment. Messages whose confirm can no longer come
	// (the connection was lost) stay unsettled: Written-Acked-Nacked.
	Counts() PublishCounts
	Close() error
}

// BatchPublisher is implemented by Publishers that can send several messages in one write.
type BatchPublisher interface {
	// PublishBatch publishes bodies in order, as Publish would each, and returns once all of
	// them are written (or confirmed, as Publish), or at the first failure.
	PublishBatch(ctx context.Context, bodies [][]byte) error
}

// PublishAll publishes bodies through p: as one batch where p is a BatchPublisher, else one by
// one.
func PublishAll(ctx context.Context, p Publisher, bodies [][]byte) error {
	if b, ok := p.(BatchPublisher); ok {
		return b.PublishBatch(ctx, bodies)
	}
	return PublishEach(ctx, p, bodies)
}

// PublishEach publishes bodies through p one by one, stopping at the first failure.
func PublishEach(ctx context.Context, p Publisher, bodies [][]byte) error {
	for _, body := range bodies {
		if err := p.Publish(ctx, body); err != nil {
			return err
		}
	}
	return nil
}

// PublishCounts is what a Publisher has sent and what the broker made of it.
type PublishCounts struct {
	Written     int64     // messages written (a write that fails is taken back)
	Acked       int64     // confirmed by the broker (Confirm only)
	Nacked      int64     // refused by the broker; NATS: also a PubAck that did not come in time (Confirm only)
	LastConfirm time.Time // when the latest ack or nack arrived; zero before the first
}
