package bus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/cpuprobe"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// Bounds of the steps around the measurement.
const (
	setupTimeout  = 30 * time.Second       // connect, check the schema, declare the queues
	verifyTimeout = 30 * time.Second       // count the rows after the run
	drainPoll     = 20 * time.Millisecond  // how often the end of the fill and the drain are checked
	maxDrainWait  = 30 * time.Second       // how long duplicates may take to drain after the last first sighting
	shortPhase    = 5 * time.Second        // a command phase shorter than this gets a warning
	busyGenerator = 80.0                   // % of one core above which iobench warns it may be the limit
	minFillPoll   = 200 * time.Microsecond // first wait when checking the broker took the whole fill
)

// outcome is how the consumer phase ended.
type outcome int

const (
	outcomeComplete outcome = iota
	outcomeTimeout
	outcomeInterrupted
	outcomeFailed
	outcomeIdle // nothing handled for a while and nothing ready: what is missing will not come
)

// How long the run waits without any message handled before it concludes. With nothing ready in
// the queues, what is still missing is lost; AMQP requeues a dead consumer's messages at once,
// JetStream only after its AckWait (30 s), hence the longer wait there. With messages ready, the
// consumer is stalled.
const (
	idleAMQP    = 3 * time.Second
	idleNATS    = 35 * time.Second
	stallAfter  = 60 * time.Second
	watchPeriod = 250 * time.Millisecond
)

// run is the state of one Run.
type run struct {
	cfg          Config
	bkind, dkind string
	argv         []string          // the consumer's command line, for the record
	env          map[string]string // the consumer's IOBENCH_* (sutEnv)
	queues       []string

	start     time.Time
	deadline  time.Time
	t         *tally
	obs       *observer
	self      *procstat.SelfMeter
	machine   *procstat.MachineMeter
	brokerM   *meter
	dbM       *meter
	suts      []*impl.Process
	proxies   inject.Set // the relays of cfg.Inject, in front of the consumer's services
	readyAt   time.Time
	faultHit  time.Time // when the fault took effect: the consumer killed, the restart begun
	fillStart time.Time
	fillEnd   time.Time
	bus       Record
	warnings  []string
}

// Run performs one bus run (see the package documentation): it prepares the table and the
// queues, fills cfg.N commands, starts the consumer, observes every second, injects cfg.Fault,
// stops when every command and event is accounted for (or at cfg.Timeout), verifies and returns
// the record. Errors wrap ErrBadInput (nothing was measured), ErrVerify or ErrSUT (the record is
// returned too, for saving). The consumer is stopped on every path.
func Run(ctx context.Context, cfg Config) (*result.Record, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, queues: cfg.Topology.queues(cfg.Profile)}
	r.bkind, _ = brokerKind(cfg.BrokerURL)
	r.dkind, _ = dbKind(cfg.DatabaseURL)
	r.argv, r.env = cfg.Consumer.Inst.Command(), sutEnv(&cfg, r.bkind)
	if err := r.startProxies(ctx); err != nil {
		return nil, err
	}
	defer r.proxies.Stop()
	return r.do(ctx)
}

func (r *run) do(ctx context.Context) (*result.Record, error) {
	sctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	db, err := openSQL(sctx, r.cfg.DatabaseURL, 2)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := prepareTable(sctx, db, r.dkind); err != nil {
		return nil, err
	}
	if r.dkind == "postgres" {
		if r.bus.MaxConnections, err = checkMaxConnections(sctx, db, r.cfg.Concurrency); err != nil {
			return nil, err
		}
	}
	b, err := openBroker(sctx, r.cfg.BrokerURL)
	if err != nil {
		return nil, err
	}
	closeBroker := sync.OnceFunc(func() { b.Close() })
	defer closeBroker()
	for _, q := range r.queues {
		if err := b.DeleteQueue(sctx, q); err != nil {
			return nil, err
		}
		if err := declare(sctx, b, q); err != nil {
			return nil, err
		}
	}
	if r.bkind == "amqp" {
		if err := bindExchange(sctx, r.cfg.BrokerURL, r.cfg.Topology); err != nil {
			return nil, err
		}
	}

	var killAt int64
	if r.cfg.Fault.Kind != FaultNone {
		killAt = r.cfg.Fault.Count(int64(r.cfg.N))
	}
	r.t = newTally(r.cfg.N, killAt)
	probe := cpuprobe.Run()
	r.start = time.Now()
	if killAt > 0 {
		r.t.timeline = fault.NewTimeline(r.start)
	}
	r.deadline = r.start.Add(r.cfg.Timeout)
	r.self, r.machine = procstat.NewSelfMeter(), procstat.NewMachineMeter()
	r.brokerM = newMeter(r.cfg.Broker.Roots)
	defer r.brokerM.stop()
	r.dbM = newMeter(r.cfg.Database.Roots)
	defer r.dbM.stop()
	r.obs = newObserver(r.start, r.cfg.N, r.cfg.BrokerURL, r.queues, r.t, r.cfg.Progress)
	go r.obs.run()
	halted := false
	halt := func() {
		if !halted {
			halted = true
			r.obs.halt()
		}
	}
	defer halt()

	if err := r.fill(ctx, b); err != nil {
		return nil, err
	}
	r.obs.fillDone.Store(true)
	closeBroker() // the fill's connection; later reads use their own, which survive a broker restart

	r.obs.setStatus("consuming")
	out, runErr := r.consume(ctx)
	end := time.Now()
	if r.readyAt.IsZero() {
		// The consumer never came up: nothing was measured.
		if cur := r.current(); cur != nil {
			cur.Kill()
		}
		if out == outcomeInterrupted {
			return nil, fmt.Errorf("interrupted: %w", ctx.Err())
		}
		return nil, runErr
	}
	broker := newCost(r.brokerM) // before the consumer stops, while its database sessions live
	dbCost := newCost(r.dbM)
	busy := r.machine.Busy()
	if cur := r.current(); cur != nil {
		r.obs.setStatus("stopping")
		_ = cur.Stop()
	}
	for _, s := range r.suts {
		_ = s.Stop() // returns once its report stream has been read to the end
	}
	selfUse := r.self.Usage()
	r.obs.setStatus("verifying")
	vctx, vcancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer vcancel()
	dr := &depthReader{url: r.cfg.BrokerURL, queues: r.queues}
	left, lerr := dr.depth(vctx)
	dr.close()
	halt()
	rows, distinct, cerr := countRows(vctx, db)

	rec := r.record(end, out)
	r.account(rec, rows, distinct, left)
	r.processes(rec, end, selfUse, broker, dbCost)
	r.recordProxies(rec)
	rec.MachineCPU, rec.CPUProbe = busy, cpuprobe.Micros(probe)
	rec.Warnings = append(rec.Warnings, r.warnings...)
	if lerr != nil {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("could not read the queue depth after the run: %v", lerr))
	}
	switch {
	case cerr != nil:
		return rec, fmt.Errorf("%w: cannot verify the rows: %v", ErrVerify, cerr)
	case out == outcomeInterrupted:
		return rec, fmt.Errorf("interrupted: %w", ctx.Err())
	case runErr != nil:
		return rec, runErr
	}
	return rec, r.verdict(out)
}

// declare declares a durable queue just deleted. JetStream removes a deleted stream's files in
// the background and may refuse a new stream of the same name meanwhile ("error creating store
// for stream"), so a failure is retried twice, 100 and 200 ms later.
func declare(ctx context.Context, b backend.Broker, q string) error {
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			if perr := pause(ctx, time.Duration(attempt)*100*time.Millisecond); perr != nil {
				return err
			}
		}
		if err = b.DeclareQueue(ctx, backend.Queue{Name: q, Durable: true}); err == nil {
			return nil
		}
	}
	return err
}

// fill publishes N commands one after another (one publisher, as in the seed) and returns once
// the broker holds all of them, so that the fill is counted at the receiving end.
func (r *run) fill(ctx context.Context, b backend.Broker) error {
	ctx, cancel := context.WithDeadline(ctx, r.deadline)
	defer cancel()
	pc := busproto.CommandPublisher(r.cfg.Profile)
	t := r.cfg.Topology
	pc.Queue, pc.Exchange, pc.RoutingKey = t.Queue, t.Exchange, t.RoutingKey
	if t.Exchange == "" {
		pc.RoutingKey = t.Queue
	} else if t.RoutingKey == "" {
		pc.Queue = "" // the backend routes by the queue's name when the key is empty; '' is the key
	}
	pub, err := b.Publisher(ctx, pc)
	if err != nil {
		return err
	}
	defer pub.Close()
	buf := make([]byte, 0, 256)
	r.fillStart = time.Now()
	for i := range r.cfg.N {
		id := uuid.NewString()
		now := time.Now().UnixNano()
		r.t.sent[i] = now
		buf = busproto.AppendCommand(buf[:0], id, int64(i), now)
		if err := pub.Publish(ctx, buf); err != nil {
			return r.fillErr(ctx, fmt.Sprintf("publishing command %d of %d", i+1, r.cfg.N), err)
		}
	}
	if err := pub.Close(); err != nil {
		return r.fillErr(ctx, "closing the fill publisher", err)
	}
	// Without confirms the last publishes may still be on their way: wait until the broker
	// counts them all, backing off from 200 µs to drainPoll.
	wait := minFillPoll
	for {
		d, err := b.Depth(ctx, t.Queue)
		if err != nil {
			return r.fillErr(ctx, "reading the queue depth after the fill", err)
		}
		if d >= int64(r.cfg.N) {
			break
		}
		if err := pause(ctx, wait); err != nil {
			return r.fillErr(ctx, fmt.Sprintf("waiting for the broker to hold all commands (%d of %d)", d, r.cfg.N), err)
		}
		wait = min(2*wait, drainPoll)
	}
	r.fillEnd = time.Now()
	return nil
}

func (r *run) fillErr(ctx context.Context, what string, err error) error {
	switch {
	case ctx.Err() != nil && time.Now().After(r.deadline):
		return fmt.Errorf("%w: timed out after %v while %s; raise --timeout", ErrVerify, r.cfg.Timeout, what)
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted while %s: %w", what, context.Cause(ctx))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// pause waits d or until ctx ends. It paces polling of the broker, never synchronizes goroutines.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *run) current() *impl.Process {
	if len(r.suts) == 0 {
		return nil
	}
	return r.suts[len(r.suts)-1]
}

// consume starts the consumer and supervises it until every command and event is accounted for
// and the queues are drained, the deadline passes, ctx ends or the consumer fails.
func (r *run) consume(ctx context.Context) (outcome, error) {
	cur, err := r.launch(ctx)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return outcomeInterrupted, nil
	case errors.Is(err, sut.ErrNotReady):
		return outcomeFailed, fmt.Errorf("%w: %v; a --sut-cmd must print \"ready\" on stdout (see 'iobench bus --help')", ErrBadInput, err)
	default:
		return outcomeFailed, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	r.readyAt = time.Now()
	r.markProxies()
	deadline := time.NewTimer(time.Until(r.deadline))
	defer deadline.Stop()
	trigger := r.t.trigger
	complete := r.t.complete
	var drain <-chan time.Time // ticks once every first sighting is in, until the queues are empty
	var drainStart time.Time
	var depth depthReader
	depth.url, depth.queues = r.cfg.BrokerURL, r.queues
	defer depth.close()
	idle := idleAMQP
	if r.bkind == "nats" {
		idle = idleNATS
	}
	watch := time.NewTicker(watchPeriod)
	defer watch.Stop()
	lastTotal, lastMove := int64(-1), time.Now()
	for {
		select {
		case <-ctx.Done():
			return outcomeInterrupted, nil
		case <-deadline.C:
			return outcomeTimeout, nil
		case <-cur.Done():
			err := cur.Wait(context.WithoutCancel(ctx)) // it has exited: returns at once
			if err == nil {
				err = errors.New("it exited with status 0")
			}
			return outcomeFailed, fmt.Errorf("%w: the consumer (pid %d) exited during the run: %v", ErrSUT, cur.PID(), err)
		case <-trigger:
			trigger = nil
			snap := r.t.snapshot()
			r.bus.FaultAtCommands = snap.cmdDistinct
			r.bus.FaultAt = result.Duration(time.Since(r.start))
			switch {
			case r.cfg.Fault.Kind == FaultKillSUT:
				r.obs.setStatus("killed")
				cur.Kill()
				began := time.Now()
				r.faultHit = began
				if cur, err = r.launch(ctx); err != nil {
					if ctx.Err() != nil {
						return outcomeInterrupted, nil
					}
					return outcomeFailed, fmt.Errorf("%w: the consumer started after kill-sut: %v", ErrSUT, err)
				}
				r.bus.FaultRecovery = result.Duration(time.Since(began))
				r.obs.setStatus("consuming")
			case r.cfg.Fault.Kind == fault.Restart:
				svc := r.cfg.Broker
				if isDBRestart(r.cfg.Fault) {
					svc = r.cfg.Database
				}
				r.obs.setStatus("restarting")
				began := time.Now()
				r.faultHit = began
				if err := svc.Restart(ctx); err != nil {
					return outcomeFailed, fmt.Errorf("%w: %s: %v", ErrSUT, r.cfg.Fault.Name(), err)
				}
				r.bus.FaultRecovery = result.Duration(time.Since(began))
				r.obs.setStatus("consuming")
			}
			lastMove = time.Now()
		case <-watch.C:
			snap := r.t.snapshot()
			if total := snap.cmdTotal + snap.evTotal + snap.bad; total != lastTotal {
				lastTotal, lastMove = total, time.Now()
				continue
			}
			quiet := time.Since(lastMove)
			if quiet < idle {
				continue
			}
			d, err := depth.depth(ctx)
			switch {
			case err != nil:
				// The broker is away; the deadline bounds the wait.
			case d == 0:
				r.warnings = append(r.warnings, fmt.Sprintf("the run ended after %v without any message handled and none left in the queues", quiet.Round(time.Millisecond)))
				return outcomeIdle, nil
			case quiet >= stallAfter:
				return outcomeFailed, fmt.Errorf("%w: the consumer handled nothing for %v while %d messages were ready", ErrSUT, quiet.Round(time.Second), d)
			}
		case <-complete:
			complete = nil
			drainStart = time.Now()
			t := time.NewTicker(drainPoll)
			defer t.Stop()
			drain = t.C
		case <-drain:
			// Every command and event has been seen once; wait for redelivered duplicates still
			// queued, so that they are counted rather than left behind.
			if d, err := depth.depth(ctx); err == nil && d == 0 {
				return outcomeComplete, nil
			}
			if time.Since(drainStart) > maxDrainWait {
				r.warnings = append(r.warnings, fmt.Sprintf("messages were still queued %v after every command and event had been seen", maxDrainWait))
				return outcomeComplete, nil
			}
		}
	}
}

// verdict turns the accounting into the run's error: nil when every command has exactly one
// row and every event was seen.
func (r *run) verdict(out outcome) error {
	b := &r.bus
	if b.Verified {
		return nil
	}
	msg := accounting(b)
	if out == outcomeTimeout {
		msg = fmt.Sprintf("timed out after %v: %s; raise --timeout or lower -n", r.cfg.Timeout, msg)
	}
	if b.LostEvents > 0 && b.LostCommands == 0 && r.cfg.Profile == ProfileSeed && r.cfg.Fault.Kind != FaultNone {
		msg += "; the seed profile publishes events transient and without confirms, so a consumer killed " +
			"mid-run loses the events it had written but the broker had not read (at-most-once); --profile durable confirms them"
	}
	return fmt.Errorf("%w: %s", ErrVerify, msg)
}
