package gopublisher

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// seedMessage is the body of seed 2's single goroutine and worker pool (go/main.go), marshalled
// with encoding/json for every message.
type seedMessage struct {
	ID        int64     `json:"id"`
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp"`
}

// ultraMessage is the body of seed 2's "ultra" publisher (go/ultra_fast_fixed.go): no timestamp.
type ultraMessage struct {
	ID      int64  `json:"id"`
	Content string `json:"content"`
}

// seedQueue is the queue argument of a seed shape: non-durable in the seed, as iobench declared
// it (IOBENCH_QUEUE_DURABLE).
type seedQueue struct {
	name    string
	durable bool
	mode    uint8 // delivery mode
}

func newSeedQueue(c ServeConfig) seedQueue {
	q := seedQueue{name: c.Queue, durable: c.QueueDurable, mode: amqp091.Transient}
	if c.Persistent {
		q.mode = amqp091.Persistent
	}
	return q
}

// seedConn is one connection and channel of a seed shape, opened as the seed did: amqp091.Dial,
// a channel, (ultra: Qos(1000), which does nothing for a publisher) and the queue declared.
type seedConn struct {
	conn *amqp091.Connection
	ch   *amqp091.Channel
}

func dialSeed(url string, q seedQueue, qos bool) (*seedConn, error) {
	conn, err := amqp091.Dial(url)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	s := &seedConn{conn: conn}
	if s.ch, err = conn.Channel(); err == nil && qos {
		err = s.ch.Qos(1000, 0, false)
	}
	if err == nil {
		_, err = s.ch.QueueDeclare(q.name, q.durable, false, false, false, nil)
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("open channel and declare %q: %w", q.name, err)
	}
	return s, nil
}

func (s *seedConn) close() {
	if s.ch != nil {
		_ = s.ch.Close()
	}
	_ = s.conn.Close()
}

// publish sends msg to the queue through the default exchange, without confirms.
func (s *seedConn) publish(ctx context.Context, q seedQueue, msg amqp091.Publishing) error {
	return s.ch.PublishWithContext(ctx, "", q.name, false, false, msg)
}

// seedBody is the single goroutine's and the pool's message i: Sprintf, a timestamp, json.Marshal.
func seedBody(i int64) []byte {
	body, _ := json.Marshal(seedMessage{ID: i, Content: fmt.Sprintf("Hello World #%d", i), Timestamp: time.Now()})
	return body
}

// newPublishing is a new amqp091.Publishing per message, as the single goroutine and the pool
// built one.
func (q seedQueue) newPublishing(body []byte) amqp091.Publishing {
	return amqp091.Publishing{ContentType: "application/json", Body: body, DeliveryMode: q.mode}
}

// progress prints the seed's cumulative rate line.
func progress(lines *log.Logger, sent int64, t0 time.Time) {
	lines.Printf("Sent %d messages - Rate: %.0f msgs/sec\n", sent, float64(sent)/time.Since(t0).Seconds())
}

// runSingle is seed 2's runSingleGoroutine after its connect and declare (done before "go"): one
// goroutine publishes ids 0..Count-1, a new message and Publishing each, a progress line every
// 10,000.
func (c ServeConfig) runSingle(ctx context.Context, sc *seedConn, t0 time.Time, lines *log.Logger) (int64, time.Duration, error) {
	q := newSeedQueue(c)
	for i := int64(0); i < c.Count; i++ {
		if err := sc.publish(ctx, q, q.newPublishing(seedBody(i))); err != nil {
			return i, time.Since(t0), fmt.Errorf("publish: %w", err)
		}
		if i > 0 && i%10000 == 0 {
			progress(lines, i, t0)
		}
	}
	return c.Count, time.Since(t0), nil
}

// runPool is seed 2's runWorkerPool, started after "go" so that the workers' connects are timed:
// Publishers workers each dial, declare and then take ids from a channel with a buffer of 1,000
// that one goroutine fills; a shared counter, bumped per message, prints progress every 10,000.
// A worker closes its connection before it is counted done, as the seed's deferred Close did.
func (c ServeConfig) runPool(ctx context.Context, t0 time.Time, lines *log.Logger) (int64, time.Duration, error) {
	q := newSeedQueue(c)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ids := make(chan int64, 1000)
	var sent atomic.Int64
	var wg sync.WaitGroup
	for w := range c.Publishers {
		wg.Go(func() {
			sc, err := dialSeed(c.URL, q, false)
			if err != nil {
				cancel(fmt.Errorf("worker %d: %w", w, err))
				return
			}
			defer sc.close()
			for id := range ids {
				if err := sc.publish(ctx, q, q.newPublishing(seedBody(id))); err != nil {
					cancel(fmt.Errorf("worker %d: publish: %w", w, err))
					return
				}
				if n := sent.Add(1); n%10000 == 0 {
					progress(lines, n, t0)
				}
			}
		})
	}
	go func() {
		defer close(ids)
		for i := int64(0); i < c.Count; i++ {
			select {
			case ids <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	return sent.Load(), time.Since(t0), context.Cause(ctx)
}

// runUltra is seed 2's ultra_fast_fixed.go, started after "go": Publishers connections dialled,
// Qos'd and declared one after another, then a goroutine per connection publishing a contiguous
// range of ids with one reused Publishing and an {id, content} body; the counter is bumped by
// 1,000 at every thousandth id. The connections close after the clock stops, as the seed's did.
func (c ServeConfig) runUltra(ctx context.Context, t0 time.Time, lines *log.Logger) (int64, time.Duration, error) {
	q := newSeedQueue(c)
	conns := make([]*seedConn, 0, c.Publishers)
	defer func() {
		for _, sc := range conns {
			sc.close()
		}
	}()
	for i := range c.Publishers {
		sc, err := dialSeed(c.URL, q, true)
		if err != nil {
			return 0, time.Since(t0), fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, sc)
	}
	var coarse atomic.Int64
	sent := make([]int64, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for w, sc := range conns {
		first, n := idRange(c.Count, len(conns), w)
		wg.Go(func() {
			msg := amqp091.Publishing{ContentType: "application/json", DeliveryMode: q.mode}
			var m ultraMessage
			for i := first; i < first+n; i++ {
				m.ID, m.Content = i, fmt.Sprintf("Hello World #%d", i)
				body, _ := json.Marshal(m)
				msg.Body = body
				if errs[w] = sc.publish(ctx, q, msg); errs[w] != nil {
					return
				}
				sent[w]++
				if i%1000 == 0 {
					if total := coarse.Add(1000); total%10000 == 0 {
						progress(lines, total, t0)
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	var total int64
	for w := range sent {
		total += sent[w]
		if errs[w] != nil {
			return total, elapsed, fmt.Errorf("worker %d: publish: %w", w, errs[w])
		}
	}
	return total, elapsed, nil
}

// idRange is part k of count ids split into parts contiguous ranges: its first id and length. The
// remainder goes to the first parts, so that no id is dropped (the seed's count divided evenly).
func idRange(count int64, parts, k int) (first, n int64) {
	per, extra := count/int64(parts), count%int64(parts)
	first = int64(k)*per + min(int64(k), extra)
	n = per
	if int64(k) < extra {
		n++
	}
	return first, n
}
