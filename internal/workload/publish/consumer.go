package publish

import (
	"github.com/iobench/iobench/internal/impls/gopublisher"

	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/stats"
)

// ackEvery is how many deliveries a consumer acks at once (multiple=true); it also acks
// whenever no further delivery is waiting, so nothing stays unacked while the queue is idle.
const ackEvery = 64

// dial opens one AMQP connection named for the broker's connection list, for the consumers and
// the checks that read the queue back (the publishers publish through package backend).
func dial(url, name string) (*amqp091.Connection, error) {
	cfg := amqp091.Config{Properties: amqp091.NewConnectionProperties(), Dial: amqp091.DefaultDial(10 * time.Second)}
	cfg.Properties.SetClientConnectionName(name)
	return amqp091.DialConfig(url, cfg)
}

// consumers read the queue during the run, recording end-to-end latency from the send time in
// each body and which sequence numbers arrived, so lost and duplicated messages are counted.
type consumers struct {
	list     []*consumer
	received atomic.Int64 // deliveries, all consumers, duplicates included
	target   atomic.Int64 // received count at which reached closes; -1 until known
	reached  chan struct{}
	once     sync.Once
}

type consumer struct {
	conn    *amqp091.Connection
	ch      *amqp091.Channel
	hist    *stats.Histogram
	seen    bitset
	n       int64 // deliveries
	pers    int64 // deliveries with delivery mode 2 (persistent)
	bad     int64 // bodies iobench did not write
	err     error
	done    chan struct{} // closed when run returns
	started bool          // run was started
}

func newConsumers() *consumers {
	c := &consumers{reached: make(chan struct{})}
	c.target.Store(-1)
	return c
}

// start opens k consumers, each with a connection of its own, consuming with manual acks.
func (cs *consumers) start(url, queue string, k, prefetch int) error {
	for i := range k {
		conn, err := dial(url, fmt.Sprintf("iobench-publish-consumer-%d", i))
		if err != nil {
			return fmt.Errorf("consumer %d: connect: %w", i, err)
		}
		c := &consumer{conn: conn, hist: stats.NewHistogram(), done: make(chan struct{})}
		cs.list = append(cs.list, c)
		if c.ch, err = conn.Channel(); err != nil {
			return fmt.Errorf("consumer %d: open channel: %w", i, err)
		}
		if err := c.ch.Qos(prefetch, 0, false); err != nil {
			return fmt.Errorf("consumer %d: set prefetch: %w", i, err)
		}
		msgs, err := c.ch.Consume(queue, fmt.Sprintf("iobench-%d", i), false, false, false, false, nil)
		if err != nil {
			return fmt.Errorf("consumer %d: consume %s: %w", i, queue, err)
		}
		c.started = true
		go c.run(msgs, cs)
	}
	return nil
}

func (c *consumer) run(msgs <-chan amqp091.Delivery, cs *consumers) {
	defer close(c.done)
	var pending uint64 // delivery tag of the last unacked delivery
	unacked := 0
	ack := func() {
		if unacked > 0 {
			if err := c.ch.Ack(pending, true); err != nil && c.err == nil {
				c.err = err
			}
			unacked = 0
		}
	}
	for {
		var d amqp091.Delivery
		var ok bool
		select {
		case d, ok = <-msgs:
		default:
			ack() // nothing is waiting: settle what we hold before blocking
			d, ok = <-msgs
		}
		if !ok {
			return
		}
		now := time.Now().UnixNano()
		c.n++
		if d.DeliveryMode == amqp091.Persistent {
			c.pers++
		}
		if st, err := gopublisher.Decode(d.Body); err != nil || !c.seen.set(st.Seq) {
			c.bad++
		} else if st.SentNS > 0 {
			c.hist.Record(time.Duration(now - st.SentNS))
		}
		pending = d.DeliveryTag
		if unacked++; unacked >= ackEvery {
			ack()
		}
		if t := cs.target.Load(); cs.received.Add(1) >= t && t >= 0 {
			cs.once.Do(func() { close(cs.reached) })
		}
	}
}

// expect sets the number of deliveries after which reached closes.
func (cs *consumers) expect(n int64) {
	cs.target.Store(n)
	if cs.received.Load() >= n {
		cs.once.Do(func() { close(cs.reached) })
	}
}

// stop closes the consumers' connections and waits for their goroutines.
func (cs *consumers) stop() {
	for _, c := range cs.list {
		if c.conn != nil {
			_ = c.conn.Close()
		}
	}
	for _, c := range cs.list {
		if c.started {
			<-c.done
		}
	}
}

// tally merges what the consumers saw: deliveries, distinct sequence numbers, bodies not ours,
// and the latency histogram.
func (cs *consumers) tally() (received, distinct, bad, persistent int64, hist *stats.Histogram) {
	hist = stats.NewHistogram()
	var all bitset
	for _, c := range cs.list {
		received += c.n
		persistent += c.pers
		bad += c.bad
		all.or(&c.seen)
		hist.Merge(c.hist)
	}
	return received, all.count(), bad, persistent, hist
}

// bitset is a growable set of sequence numbers.
type bitset struct{ w []uint64 }

// maxSeq bounds the set (128 MiB of bits) so that a foreign body cannot make it huge.
const maxSeq = 1 << 30

// set adds i; false when i is beyond maxSeq.
func (b *bitset) set(i uint64) bool {
	if i >= maxSeq {
		return false
	}
	k := i / 64
	if int(k) >= len(b.w) {
		n := max(int(k)+1, 2*len(b.w))
		w := make([]uint64, n)
		copy(w, b.w)
		b.w = w
	}
	b.w[k] |= 1 << (i % 64)
	return true
}

func (b *bitset) or(o *bitset) {
	if len(o.w) > len(b.w) {
		w := make([]uint64, len(o.w))
		copy(w, b.w)
		b.w = w
	}
	for i, v := range o.w {
		b.w[i] |= v
	}
}

func (b *bitset) count() int64 {
	var n int
	for _, v := range b.w {
		n += bits.OnesCount64(v)
	}
	return int64(n)
}
