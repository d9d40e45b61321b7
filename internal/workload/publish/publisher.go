package publish

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
)

// dial opens one AMQP connection named for the broker's connection list, for the consumers and
// the checks that read the queue back (the publishers publish through package backend).
func dial(url, name string) (*amqp091.Connection, error) {
	cfg := amqp091.Config{Properties: amqp091.NewConnectionProperties(), Dial: amqp091.DefaultDial(10 * time.Second)}
	cfg.Properties.SetClientConnectionName(name)
	return amqp091.DialConfig(url, cfg)
}

// publisher is one goroutine publishing through a backend.Publisher of its own (an AMQP
// channel; with --confirm N, in confirm mode with a window of N). The hot path reuses one body
// buffer; the Publisher's counts are read once a second by the observer.
type publisher struct {
	idx    int
	pub    backend.Publisher
	cfg    *Config
	quota  int64  // messages to send; <0 until stopped
	first  uint64 // first sequence number
	stride uint64 // step between sequence numbers
	stop   *atomic.Bool
	endNS  int64 // Unix ns after the last write
	err    error
}

// open opens the publisher's channel on b (confirm mode and its listener) before the clock
// starts.
func (p *publisher) open(ctx context.Context, b backend.Broker) error {
	contentType := "application/json"
	if p.cfg.Body == BodyBinary {
		contentType = "application/octet-stream"
	}
	pub, err := b.Publisher(ctx, backend.PublisherConfig{
		Queue:       p.cfg.Queue,
		Persistent:  p.cfg.Persistent,
		ContentType: contentType,
		Confirm:     p.cfg.Confirm > 0,
		Window:      p.cfg.Confirm,
	})
	if err != nil {
		return fmt.Errorf("publisher %d: %w", p.idx, err)
	}
	p.pub = pub
	return nil
}

// run publishes until the quota is sent or stop is set. It waits for start first. Each body
// carries the time it is written, taken once a confirm slot is free (Ready), as before.
func (p *publisher) run(ctx context.Context, start <-chan struct{}) {
	defer func() { p.endNS = time.Now().UnixNano() }()
	select {
	case <-start:
	case <-ctx.Done():
		return
	}
	buf := newBody(p.cfg.Body, p.cfg.Size)
	seq := p.first
	for n := int64(0); p.quota < 0 || n < p.quota; n++ {
		if p.stop.Load() || ctx.Err() != nil {
			break
		}
		err := p.pub.Ready(ctx)
		if err == nil {
			err = p.pub.Publish(ctx, encode(buf, p.cfg.Body, seq, p.idx, time.Now()))
		}
		if err != nil {
			if ctx.Err() == nil {
				p.err = fmt.Errorf("publisher %d: %w", p.idx, err)
			}
			return
		}
		seq += p.stride
	}
}

// awaitConfirms waits until every written message is confirmed or nacked; false when ctx ended
// first or the channel closed with confirms missing.
func (p *publisher) awaitConfirms(ctx context.Context) bool {
	return p.pub.Flush(ctx) == nil
}

// close closes the channel.
func (p *publisher) close() {
	if p.pub == nil {
		return
	}
	if err := p.pub.Close(); err != nil && p.err == nil {
		p.err = fmt.Errorf("publisher %d: close: %w", p.idx, err)
	}
}
