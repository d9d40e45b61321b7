package publish

import (
	"github.com/iobench/iobench/internal/impls/gopublisher"

	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/amqp"
	"github.com/iobench/iobench/internal/cpuprobe"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
)

// quietFor is how long the broker's count may stay still, after the last write, before the run
// takes it as final: the broker has counted everything it is going to.
const quietFor = 2 * time.Second

// run is the state of one Run.
type run struct {
	cfg    Config
	log    *slog.Logger
	admin  *amqp.Broker
	conns  []backend.Broker // the publishers' connections
	pubs   []*gopublisher.Publisher
	set    gopublisher.Settings // what the publishers share
	cons   *consumers
	obs    *observer
	t0     time.Time
	end    time.Time // when the broker had counted the last message
	wEnd   time.Time // after the last client write
	final  sample
	checks []string
	warns  []string

	stop    atomic.Bool // tells the publishers to stop (-d elapsed, interrupted)
	self    *procstat.SelfMeter
	machine *procstat.MachineMeter
	probe   time.Duration // cpuprobe's time just before the load
	broker  *procstat.Set // RabbitMQ's process trees; nil when unknown
	ext     *external     // an impl publishing instead of the built-in publishers
}

// Run publishes as cfg says, counting what the broker accepted, and returns the record. The
// queue is deleted and declared afresh first (the run owns it) and deleted afterwards unless
// cfg.KeepQueue. An error wrapping ErrBadInput means the user must fix something (nothing was
// measured); one wrapping ErrVerify comes with the record of a run that lost or duplicated
// messages.
func Run(ctx context.Context, cfg Config) (*result.Record, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, log: cfg.Log, cons: newConsumers()}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	defer r.cleanup()
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	r.measure(ctx)
	rec := r.record(ctx)
	return rec, r.verdict(rec)
}

// setup connects, prepares the queue and opens every publisher and consumer before the clock
// starts.
func (r *run) setup(ctx context.Context) error {
	c := &r.cfg
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	admin, err := amqp.Open(octx, c.URL)
	if err != nil {
		return badInput("%v", err)
	}
	r.admin = admin
	if err := admin.DeleteQueue(octx, c.Queue); err != nil {
		return badInput("cannot delete queue %s before the run: %v; choose another --queue", c.Queue, err)
	}
	if err := admin.DeclareQueue(octx, backend.Queue{Name: c.Queue, Durable: c.QueueDurable}); err != nil {
		return badInput("%v", err)
	}
	if r.ext != nil {
		r.observe(CountedByQueue)
		return nil
	}
	nconn := c.Publishers
	if c.ShareConnection {
		nconn = 1
	}
	for i := range nconn {
		conn, err := amqp.Open(octx, c.URL)
		if err != nil {
			return fmt.Errorf("connect publisher %d: %w", i, err)
		}
		r.conns = append(r.conns, conn)
	}
	r.set = gopublisher.Settings{Queue: c.Queue, Persistent: c.Persistent, Confirm: c.Confirm, Body: c.Body, Size: c.Size}
	var next uint64
	for i := range c.Publishers {
		p := &gopublisher.Publisher{Index: i, Quota: -1, First: uint64(i), Stride: uint64(c.Publishers), Stop: &r.stop}
		if c.Count > 0 {
			q := c.Count / int64(c.Publishers)
			if int64(i) < c.Count%int64(c.Publishers) {
				q++ // the remainder goes to the first publishers, none is dropped
			}
			p.Quota, p.First, p.Stride = q, next, 1
			next += uint64(q)
		}
		if err := p.Open(octx, r.conns[i%len(r.conns)], &r.set); err != nil {
			return err
		}
		r.pubs = append(r.pubs, p)
	}
	if c.Consumers > 0 {
		if err := r.cons.start(c.URL, c.Queue, c.Consumers, c.Prefetch); err != nil {
			return err
		}
	}
	countedBy := CountedByQueue
	switch {
	case c.Confirm > 0:
		countedBy = CountedByConfirms
	case c.Consumers > 0:
		countedBy = CountedByConsumed
	}
	r.observe(countedBy)
	return nil
}

// observe creates the observer and notes the broker's processes.
func (r *run) observe(countedBy string) {
	c := &r.cfg
	depth := func(ctx context.Context) (int64, error) {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return r.admin.Depth(dctx, c.Queue)
	}
	r.obs = newObserver(countedBy, r.counts, depth, c.Progress, c.Count)
	r.obs.clientSide = r.ext == nil
	if c.BrokerRoots != nil {
		r.broker = procstat.NewSet(c.BrokerRoots)
	}
}

// counts sums the client-side counters.
func (r *run) counts() (written, confirmed, consumed int64) {
	for _, p := range r.pubs {
		n := p.Counts()
		written += n.Written
		confirmed += n.Acked
	}
	return written, confirmed, r.cons.received.Load()
}

// measure runs the publishers, waits for their confirms and for the broker to count the last
// message, then for the consumers.
func (r *run) measure(ctx context.Context) {
	c := &r.cfg
	r.probe = cpuprobe.Run()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range r.pubs {
		wg.Add(1)
		go func() { defer wg.Done(); p.Run(ctx, start) }()
	}
	r.startCost()
	r.t0 = time.Now()
	r.obs.begin(r.t0)
	stopObs := make(chan struct{})
	obsDone := make(chan struct{})
	go func() { defer close(obsDone); r.obs.run(ctx, stopObs) }()
	close(start)

	pubsDone := make(chan struct{})
	go func() { wg.Wait(); close(pubsDone) }()
	var timer <-chan time.Time
	if c.Duration > 0 {
		t := time.NewTimer(c.Duration)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-pubsDone:
	case <-timer:
		r.stopPublishers()
		<-pubsDone
	case <-ctx.Done():
		r.stopPublishers()
		<-pubsDone
	}
	r.wEnd = time.Now()
	var last int64
	for _, p := range r.pubs {
		last = max(last, p.EndNS)
	}
	if last > 0 {
		r.wEnd = time.Unix(0, last)
	}

	// The broker's count: confirms first, then the queue.
	bctx := context.WithoutCancel(ctx)
	// One deadline for the whole drain.
	drain, cancel := context.WithTimeout(ctx, c.DrainTimeout)
	defer cancel()
	for _, p := range r.pubs {
		if !p.AwaitConfirms(drain) {
			break
		}
	}
	written, _, _ := r.counts()
	want := written
	if r.obs.countedBy == CountedByConfirms {
		var lastAck time.Time
		for _, p := range r.pubs {
			if t := p.Counts().LastConfirm; t.After(lastAck) {
				lastAck = t
			}
		}
		r.final = r.obs.read(bctx)
		r.end = r.wEnd
		if !lastAck.IsZero() {
			r.end = lastAck
		}
	} else {
		r.final, r.end = r.obs.settled(bctx, want, quietFor, c.DrainTimeout)
		if r.final.accepted >= want && r.end.Before(r.wEnd) {
			r.end = r.wEnd
		}
	}
	if c.Consumers > 0 {
		r.cons.expect(r.final.accepted)
		select {
		case <-r.cons.reached:
		case <-drain.Done():
			if ctx.Err() == nil {
				r.warns = append(r.warns, fmt.Sprintf("consumers did not receive every accepted message within %v", c.DrainTimeout))
			}
		}
	}
	close(stopObs)
	<-obsDone
	r.obs.finish(r.final)
}

func (r *run) stopPublishers() {
	for _, p := range r.pubs {
		p.Stop.Store(true)
	}
}

// cleanup closes every connection; the queue is deleted unless KeepQueue.
func (r *run) cleanup() {
	r.cons.stop()
	for _, p := range r.pubs {
		p.Close()
	}
	for _, c := range r.conns {
		_ = c.Close()
	}
	if r.admin != nil {
		if !r.cfg.KeepQueue {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := r.admin.DeleteQueue(ctx, r.cfg.Queue); err != nil {
				r.log.Warn("deleting the queue after the run", "queue", r.cfg.Queue, "err", err)
			}
			cancel()
		}
		_ = r.admin.Close()
	}
}

// verdict turns lost or duplicated messages, or a publisher that failed, into an ErrVerify
// error (one line).
func (r *run) verdict(rec *result.Record) error {
	if rec.Interrupted {
		return nil
	}
	var why []string
	if r.ext != nil && r.ext.err != nil {
		return fmt.Errorf("%w: %v", ErrImpl, r.ext.err)
	}
	for _, p := range r.pubs {
		if p.Err != nil {
			why = append(why, p.Err.Error())
		}
	}
	if rec.Counts.Lost > 0 || rec.Counts.Duplicated > 0 {
		why = append(why, fmt.Sprintf("%d messages lost, %d duplicated (written %d, broker accepted %d, counted by %s)",
			rec.Counts.Lost, rec.Counts.Duplicated, Section(rec).Written, Section(rec).Accepted, Section(rec).CountedBy))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrVerify, strings.Join(why, "; "))
}
