package gopublisher

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/backend"
)

// Settings are what every publisher of one in-process run shares.
type Settings struct {
	Queue      string // published to through the default exchange
	Persistent bool   // delivery mode 2
	Confirm    int    // publisher confirms with at most Confirm outstanding; 0 = off
	Body       string // BodyBinary, BodySeed or BodySeedMin
	Size       int    // body size for BodyBinary
}

// Publisher is one goroutine publishing through a backend.Publisher of its own (an AMQP
// channel; with Confirm N, in confirm mode with a window of N): the Go publisher that
// `iobench publish` runs in its own process. The hot path reuses one body buffer; the
// Publisher's counts (Counts) are read once a second by the workload's observer.
type Publisher struct {
	Index  int
	Quota  int64  // messages to send; <0 until Stop is set
	First  uint64 // first sequence number
	Stride uint64 // step between sequence numbers
	Stop   *atomic.Bool
	// EndNS is the Unix ns after the last write, once Run has returned.
	EndNS int64
	// Err is why the publisher stopped early, once Run or Close has returned.
	Err error

	pub backend.Publisher
	set *Settings
}

// Open opens the publisher's channel on b (confirm mode and its listener) before the clock
// starts.
func (p *Publisher) Open(ctx context.Context, b backend.Broker, s *Settings) error {
	contentType := "application/json"
	if s.Body == BodyBinary {
		contentType = "application/octet-stream"
	}
	pub, err := b.Publisher(ctx, backend.PublisherConfig{
		Queue:       s.Queue,
		Persistent:  s.Persistent,
		ContentType: contentType,
		Confirm:     s.Confirm > 0,
		Window:      s.Confirm,
	})
	if err != nil {
		return fmt.Errorf("publisher %d: %w", p.Index, err)
	}
	p.pub, p.set = pub, s
	return nil
}

// Counts are the publisher's client-side counts: written, confirmed, nacked.
func (p *Publisher) Counts() backend.PublishCounts { return p.pub.Counts() }

// Run publishes until the quota is sent or Stop is set. It waits for start first. Each body
// carries the time it is written, taken once a confirm slot is free (Ready).
func (p *Publisher) Run(ctx context.Context, start <-chan struct{}) {
	defer func() { p.EndNS = time.Now().UnixNano() }()
	select {
	case <-start:
	case <-ctx.Done():
		return
	}
	buf := NewBody(p.set.Body, p.set.Size)
	seq := p.First
	for n := int64(0); p.Quota < 0 || n < p.Quota; n++ {
		if p.Stop.Load() || ctx.Err() != nil {
			break
		}
		err := p.pub.Ready(ctx)
		if err == nil {
			err = p.pub.Publish(ctx, Encode(buf, p.set.Body, seq, p.Index, time.Now()))
		}
		if err != nil {
			if ctx.Err() == nil {
				p.Err = fmt.Errorf("publisher %d: %w", p.Index, err)
			}
			return
		}
		seq += p.Stride
	}
}

// AwaitConfirms waits until every written message is confirmed or nacked; false when ctx ended
// first or the channel closed with confirms missing.
func (p *Publisher) AwaitConfirms(ctx context.Context) bool {
	return p.pub.Flush(ctx) == nil
}

// Close closes the channel.
func (p *Publisher) Close() {
	if p.pub == nil {
		return
	}
	if err := p.pub.Close(); err != nil && p.Err == nil {
		p.Err = fmt.Errorf("publisher %d: close: %w", p.Index, err)
	}
}
