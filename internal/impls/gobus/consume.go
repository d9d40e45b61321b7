package gobus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// InsertSQL is the seed's INSERT, made idempotent on id so that a redelivered command never makes
// a second row.
const InsertSQL = "INSERT INTO customers (id, name, email) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING"

// Reconnect back-off of the consumer after it lost its broker or database.
const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// ConsumerConfig configures Consume, the Go reference consumer run by `iobench serve bus`.
type ConsumerConfig struct {
	Mode        string // busproto.ModeSync (one message at a time) or ModeAsync (Concurrency in flight)
	Concurrency int    // async: handlers in flight in this one process; the pool has as many connections
	Prefetch    int    // async: unacked deliveries the broker may push, at least Concurrency
	Profile     string // busproto.ProfileSeed or ProfileDurable
	BrokerURL   string // amqp:// or nats://
	DatabaseURL string // postgres:// or sqlite://
	// Report receives the report stream (see package busproto); every line is written
	// with one Write call before the message is acked. Usually os.Stdout.
	Report io.Writer
	// Log receives warnings (reconnects, dropped messages); nil discards them.
	Log *slog.Logger
}

// errReportLost ends Consume when the report stream cannot be written: the load side is gone.
var errReportLost = errors.New("bus: report stream closed; the load side has gone away")

func (c *ConsumerConfig) validate() error {
	if err := busproto.CheckModeProfile(c.Mode, c.Profile); err != nil {
		return err
	}
	if err := busproto.CheckConcurrency(c.Mode, c.Concurrency, c.Prefetch); err != nil {
		return err
	}
	if c.BrokerURL == "" {
		return fmt.Errorf("%w: no broker URL; pass --amqp-url or --nats-url (or set IOBENCH_AMQP_URL / IOBENCH_NATS_URL)", fail.ErrBadInput)
	}
	if c.DatabaseURL == "" {
		return fmt.Errorf("%w: no database URL; pass --database-url (or set IOBENCH_DATABASE_URL)", fail.ErrBadInput)
	}
	if c.Report == nil {
		return fmt.Errorf("%w: no report stream", fail.ErrBadInput)
	}
	return nil
}

// Consume runs the reference consumer until ctx ends: for each command BEGIN; INSERT; publish the
// event; COMMIT; report; ack; for each event report and ack. It connects once to check its
// inputs (a failure then is returned, wrapping ErrBadInput when the URLs are wrong) and from then
// on reconnects after any broker or database failure, so that unacked messages are redelivered
// and handled again. When ctx ends, handlers in flight finish and are acked before it returns.
func Consume(ctx context.Context, cfg ConsumerConfig) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	workers, prefetch := busproto.Shape(cfg.Mode, cfg.Concurrency, cfg.Prefetch)
	db, err := open.SQL(ctx, cfg.DatabaseURL, open.MaxConns(workers))
	if err != nil {
		return err
	}
	defer db.Close()
	c := &consumer{cfg: cfg, db: db, workers: workers, prefetch: prefetch}
	defer func() {
		cfg.Log.Info("bus consumer: stopped", "commands", c.committed.Load(), "chained", c.chained.Load())
	}()
	backoff := minBackoff
	for {
		started, err := c.session(ctx)
		switch {
		case ctx.Err() != nil && !errors.Is(err, errReportLost):
			return nil
		case errors.Is(err, errReportLost):
			return err
		case err != nil && !c.ready:
			return err // never connected: bad URLs or services down
		}
		if started {
			backoff = minBackoff
		}
		cfg.Log.Warn("bus consumer: reconnecting", "after", backoff, "cause", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// consumer is the state of Consume shared by its sessions.
type consumer struct {
	cfg      ConsumerConfig
	db       backend.SQL
	workers  int
	prefetch int
	ready    bool // "ready" was reported; from then on failures lead to reconnects

	committed atomic.Int64 // commands committed
	chained   atomic.Int64 // of which begun with the previous command's commit
}

// session connects to the broker, consumes until ctx ends or something fails, and closes every
// broker object it opened (which requeues unacked deliveries). started says whether consumers
// came up, so that back-off restarts after a session that worked.
func (c *consumer) session(ctx context.Context) (started bool, err error) {
	// Broker objects live until the handlers in flight have finished, even after ctx ends, so
	// that a graceful stop acks what it handled.
	life, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	b, err := open.Broker(life, c.cfg.BrokerURL)
	if err != nil {
		return false, err
	}
	defer b.Close()
	cmds, err := b.Consumer(life, c.consumerConfig(busproto.CommandsQueue))
	if err != nil {
		return false, err
	}
	defer cmds.Close()
	set := newSettler(c.cfg.Report, cmds)
	var evCh <-chan backend.Delivery // nil in the seed profile: events arrive on the command queue
	if c.cfg.Profile == busproto.ProfileDurable {
		events, err := b.Consumer(life, c.consumerConfig(busproto.EventsQueue))
		if err != nil {
			return false, err
		}
		defer events.Close()
		set = newSettler(c.cfg.Report, cmds, events)
		evCh = events.Deliveries()
	}
	pubs, err := c.publishers(life, b)
	if err != nil {
		return false, err
	}
	defer func() {
		for _, p := range pubs {
			p.Close()
		}
	}()
	senders := c.senders(pubs)
	if !c.ready {
		if _, err := c.cfg.Report.Write(busproto.AppendReport(nil, busproto.Report{Kind: busproto.ReportReady})); err != nil {
			return true, errReportLost
		}
		c.ready = true
	}

	failed := make(chan struct{})
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err; close(failed); kill() })
	}
	var wg sync.WaitGroup
	rel := &relay{}
	for i := range c.workers {
		w := &worker{c: c, pub: senders[i%len(senders)], set: set, life: life, dbCtx: context.WithoutCancel(life),
			stop: ctx, failed: failed, evCh: evCh, relay: rel, succ: newSuccessor()}
		wg.Go(func() {
			if err := w.run(); err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	return true, first
}

// consumerConfig is how the consumer reads queue: up to Prefetch - Concurrency acks may be held
// back to go out with a later multiple ack, so that held acks and busy handlers together stay
// within the prefetch.
func (c *consumer) consumerConfig(queue string) backend.ConsumerConfig {
	return backend.ConsumerConfig{Queue: queue, Prefetch: c.prefetch, AckBacklog: max(c.prefetch-c.workers, 0)}
}

// worker is one handler goroutine with its buffer, its event publisher (its own, or shared) and
// the session's settler.
type worker struct {
	c    *consumer
	pub  sender
	set  *settler
	life context.Context
	// dbCtx, life without its end, is for the statements of a transaction: a round trip to the
	// database is short and ends anyway when the database or its connection fails, and one
	// that can end costs pgx a context watch (an AfterFunc, a channel, the parent's lock) per
	// round trip. After the session fails, a handler finishes its round trip, then fails.
	dbCtx  context.Context
	stop   context.Context         // ends on a graceful stop
	failed <-chan struct{}         // closed when the session fails
	evCh   <-chan backend.Delivery // events, in the durable profile; else nil
	evBuf  []byte

	ahead    backend.Delivery // taken while a transaction was open; handled next
	aheadSrc int
	aheadMsg busproto.Message

	relay   *relay // the session's, shared by its workers
	leg     leg    // this worker's transaction, when open on the relay
	legOpen bool
	succ    *successor // this worker's command, when joined to another's leg
}

// run takes deliveries until the graceful stop or the session fails.
func (w *worker) run() error {
	for {
		src, d, err := w.next()
		if d == nil {
			return err
		}
		if err := w.handle(src, d); err != nil {
			return err
		}
	}
}

// next returns the delivery taken ahead, or waits for one; without one it returns why: nil on a
// graceful stop or after the session failed, else the consumer's end.
func (w *worker) next() (int, backend.Delivery, error) {
	if d := w.ahead; d != nil {
		w.ahead = nil
		return w.aheadSrc, d, nil
	}
	var d backend.Delivery
	var ok bool
	src := 0
	select {
	case <-w.stop.Done():
		return 0, nil, nil
	case <-w.failed:
		return 0, nil, nil
	case d, ok = <-w.set.srcs[0].Deliveries():
	case d, ok = <-w.evCh:
		src = 1
	}
	if ok {
		return src, d, nil
	}
	if err := backend.ConsumerErr(w.set.srcs[src]); err != nil {
		return 0, nil, fmt.Errorf("consumer stopped: %w", err)
	}
	if w.stop.Err() != nil {
		return 0, nil, nil
	}
	return 0, nil, errors.New("consumer stopped")
}

// handle processes one delivery and hands it to the settler, which reports and acks it; on
// failure it nacks (requeue) and returns the error, which ends the session: the next session
// sees the message again, redelivered.
func (w *worker) handle(src int, d backend.Delivery) error {
	m, err := busproto.DecodeMessage(d.Body())
	if err != nil {
		w.c.cfg.Log.Warn("bus consumer: dropping a message", "err", err)
		return w.set.settle(src, d, busproto.Report{Kind: busproto.ReportBad})
	}
	if m.Type != busproto.TypeCommand {
		return w.set.settle(src, d, report(busproto.ReportEvent, &m, d))
	}
	tx, err := w.begin(&m)
	if err != nil {
		_ = d.Nack(true)
		return err
	}
	return w.command(tx, src, d, m)
}

// begin returns the transaction of command m with its row inserted: begun in the COMMIT round
// trip of a transaction open for it on the relay, else with BEGIN and the INSERT in a round
// trip of its own. Either way the transaction is then open on the relay until its event is out.
func (w *worker) begin(m *busproto.Message) (backend.Tx, error) {
	if w.relay.join(w.succ, m) {
		<-w.succ.done
		if w.succ.err != nil {
			return nil, w.succ.err
		}
		w.c.chained.Add(1)
		w.openLeg(w.succ.tx)
		return w.succ.tx, nil
	}
	tx, err := w.c.db.Begin(w.life)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	w.openLeg(tx)
	if _, err := tx.Exec(w.dbCtx, InsertSQL, m.ID, m.Name, m.Email); err != nil {
		_ = tx.Rollback(w.dbCtx)
		err = fmt.Errorf("insert: %w", err)
		if next := w.closeLeg(); next != nil {
			next.hand(nil, err)
		}
		return nil, err
	}
	return tx, nil
}

// openLeg opens tx on the relay for another command to join, when tx can chain.
func (w *worker) openLeg(tx backend.Tx) {
	if _, ok := tx.(backend.Chainer); ok {
		w.legOpen = true
		w.relay.openLeg(&w.leg)
	}
}

// closeLeg closes this worker's leg, if open, and returns the command that joined it, if any.
func (w *worker) closeLeg() *successor {
	if !w.legOpen {
		return nil
	}
	w.legOpen = false
	return w.relay.closeLeg(&w.leg)
}

// command finishes the seed's command handler for m, delivered as d, whose row tx has inserted:
// it publishes the event inside the transaction, commits, and hands d to the settler. When
// another command joined tx on the relay while the event went out, or was delivered meanwhile
// and is taken here, and tx is a backend.Chainer, that command's transaction begins, with its
// INSERT, in the same round trip as the commit: handed over to the handler that joined, or
// finished here in turn. One transaction per command still, each event published before its
// COMMIT, each ack after it.
func (w *worker) command(tx backend.Tx, src int, d backend.Delivery, m busproto.Message) error {
	chain, chains := tx.(backend.Chainer)
	for {
		next, err := w.publish(&m)
		if err != nil {
			_ = tx.Rollback(w.dbCtx)
			_ = d.Nack(true)
			if next != nil {
				next.hand(nil, err)
			}
			return err
		}
		var nm *busproto.Message
		switch {
		case next != nil:
			nm = &next.m
		case chains && w.peek():
			nm = &w.aheadMsg
		default:
			if err := tx.Commit(w.dbCtx); err != nil {
				_ = d.Nack(true)
				return fmt.Errorf("commit: %w", err)
			}
			w.c.committed.Add(1)
			return w.set.settle(src, d, report(busproto.ReportCommand, &m, d))
		}
		if err := w.commitWith(chain, src, d, &m, nm); err != nil {
			_ = tx.Rollback(w.dbCtx) // the next transaction, if it began
			if next != nil {
				next.hand(nil, fmt.Errorf("begun with another command's commit: %w", err))
			} else {
				_ = w.ahead.Nack(true)
				w.ahead = nil
			}
			return err
		}
		if next != nil {
			next.hand(tx, nil)
			return nil
		}
		w.c.chained.Add(1)
		src, d, m = w.aheadSrc, w.ahead, *nm
		w.ahead = nil
		w.openLeg(tx)
	}
}

// commitWith commits m's transaction, delivered as d, and begins nm's with its INSERT in the
// same round trip, then hands d to the settler.
func (w *worker) commitWith(chain backend.Chainer, src int, d backend.Delivery, m, nm *busproto.Message) error {
	committed, _, err := chain.CommitExec(w.dbCtx, InsertSQL, nm.ID, nm.Name, nm.Email)
	if !committed {
		_ = d.Nack(true)
		return fmt.Errorf("commit: %w", err)
	}
	w.c.committed.Add(1)
	if serr := w.set.settle(src, d, report(busproto.ReportCommand, m, d)); serr != nil {
		return serr
	}
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	return nil
}

// publish publishes m's event and closes tx's leg on the relay, returning the command that
// joined it, if any.
func (w *worker) publish(m *busproto.Message) (*successor, error) {
	w.evBuf = busproto.AppendEvent(w.evBuf[:0], m)
	err := w.pub.Publish(w.life, w.evBuf)
	next := w.closeLeg()
	if err != nil {
		return next, fmt.Errorf("publish event: %w", err)
	}
	return next, nil
}

// peek takes a delivery that is already waiting, unless the consumer is stopping, to be handled
// next, and reports whether it is a command (then decoded in w.aheadMsg).
func (w *worker) peek() bool {
	if w.ahead == nil && w.stop.Err() == nil {
		select {
		case <-w.failed:
		case d, ok := <-w.set.srcs[0].Deliveries():
			if ok {
				w.ahead, w.aheadSrc = d, 0
			}
		case d, ok := <-w.evCh:
			if ok {
				w.ahead, w.aheadSrc = d, 1
			}
		default:
		}
	}
	if w.ahead == nil {
		return false
	}
	m, err := busproto.DecodeMessage(w.ahead.Body())
	w.aheadMsg = m
	return err == nil && m.Type == busproto.TypeCommand
}

// report is the report line of message m, handled now.
func report(kind byte, m *busproto.Message, d backend.Delivery) busproto.Report {
	return busproto.Report{Kind: kind, Seq: m.Seq, AtNS: time.Now().UnixNano(), Redelivered: d.Redelivered()}
}

func ackErr(err error) error {
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	return nil
}
