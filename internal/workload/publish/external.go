package publish

import (
	"github.com/iobench/iobench/internal/impls/gopublisher"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/cpuprobe"
	"github.com/iobench/iobench/internal/env"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
)

// ErrImpl is matched by the error of an external publisher that failed (did not start, exited
// with an error or ran out of time); the CLI exits 1.
var ErrImpl = errors.New("publisher impl failed")

// ImplConfig is one run of an external publisher declared in impls/ (workload publish).
//
// The contract: the impl reads the variables of package env, connects, prints a line "ready", waits for
// one line on its standard input (iobench's start signal), publishes IOBENCH_COUNT messages to
// IOBENCH_QUEUE through the default exchange, prints "result sent=N seconds=S" (its own account,
// recorded for contrast only) and exits 0. A variant whose settings say connect_after_go prints
// "ready" before it connects and connects after the start signal, inside the measured window.
// iobench declares the queue; an impl may declare it again as iobench did (IOBENCH_QUEUE_DURABLE).
type ImplConfig struct {
	Installation *impl.Installation
	Variant      string // one of the manifest's variants, with settings in workloads.publish.variants
	URL          string
	Count        int           // 0: the variant's count
	Concurrency  int           // 0: the variant's concurrency
	Queue        string        // "": the variant's queue
	Timeout      time.Duration // bound on the impl's run; 0 = 10 min
	DrainTimeout time.Duration
	Inject       []inject.Spec // relays between the impl and RabbitMQ

	Command     []string
	Versions    map[string]string
	BrokerRoots func() []int
	Log         *slog.Logger
	Progress    io.Writer
}

// external is the state of an impl run.
type external struct {
	inst     *impl.Installation
	variant  impl.Variant
	settings Settings // the variant's, from the manifest
	proc     *impl.Process
	usage    procstat.Usage
	err      error
	inject   []inject.Spec
	proxies  inject.Set

	mu   sync.Mutex
	self *SelfReport
}

// RunImpl installs nothing (pass an Installation from impl.Install), prepares the variant's
// queue, starts the impl, tells it to begin and counts what the broker accepted, exactly as Run
// does for the built-in publisher without confirms: the queue's message count read from the
// broker. The impl's own rate is recorded as SelfReported, never used.
func RunImpl(ctx context.Context, ic ImplConfig) (*result.Record, error) {
	m := ic.Installation.Manifest
	v, s, ok := settings(m, ic.Variant)
	if !ok {
		if _, implements := m.Workloads[Name]; !implements {
			return nil, badInput("impl %s does not implement the publish workload", m.Name)
		}
		return nil, badInput("%v", m.UnknownVariant(ic.Variant))
	}
	cfg := Config{
		URL: ic.URL, Queue: s.Queue, Publishers: max(s.Concurrency, 1), Persistent: s.Persistent,
		QueueDurable: s.QueueDurable, Body: gopublisher.BodySeed, Count: int64(s.Count), DrainTimeout: ic.DrainTimeout,
		Command: ic.Command, Versions: ic.Versions, BrokerRoots: ic.BrokerRoots, Log: ic.Log, Progress: ic.Progress,
	}
	if s.Confirm {
		cfg.Confirm = 1
	}
	if ic.Queue != "" {
		cfg.Queue = ic.Queue
	}
	if ic.Count != 0 {
		cfg.Count = int64(ic.Count)
	}
	if ic.Concurrency != 0 {
		cfg.Publishers = ic.Concurrency
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, log: cfg.Log, cons: newConsumers(), ext: &external{inst: ic.Installation, variant: v, settings: s, inject: ic.Inject}}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	defer r.cleanup()
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	timeout := ic.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	defer r.ext.proxies.Stop()
	if err := r.measureImpl(ctx, timeout); err != nil {
		return nil, err
	}
	rec := r.record(ctx)
	r.ext.recordProxies(rec, r.final.accepted)
	return rec, r.verdict(rec)
}

// measureImpl starts the impl, gives the start signal and waits for it to finish and for the
// broker to count the last message. An impl that does not get ready is an ErrImpl error.
func (r *run) measureImpl(ctx context.Context, timeout time.Duration) error {
	c, e := &r.cfg, r.ext
	vars := map[string]string{
		env.AMQPURL: c.URL, env.Concurrency: strconv.Itoa(c.Publishers),
		env.Queue: c.Queue, env.QueueDurable: boolEnv(c.QueueDurable), env.Count: strconv.FormatInt(c.Count, 10),
		env.Persistent: boolEnv(c.Persistent), env.Confirm: boolEnv(c.Confirm > 0),
	}
	if err := e.startProxies(ctx, vars); err != nil {
		return err
	}
	r.probe = cpuprobe.Run()
	proc, err := e.inst.Start(ctx, impl.StartOptions{Variant: e.variant.Name, Env: vars, OnLine: e.line})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrImpl, err)
	}
	e.proc = proc
	r.startCost()
	proc.Mark()
	if err := e.markProxies(); err != nil {
		e.err = err
	}
	r.t0 = time.Now()
	r.obs.begin(r.t0)
	stopObs := make(chan struct{})
	obsDone := make(chan struct{})
	go func() { defer close(obsDone); r.obs.run(ctx, stopObs) }()
	if err := proc.Send("go"); err != nil {
		e.err = err
	} else {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		if err := proc.Wait(wctx); err != nil {
			switch {
			case ctx.Err() != nil:
			case wctx.Err() != nil:
				e.err = fmt.Errorf("impl %s did not finish within %v; log %s", e.inst.Manifest.Name, timeout, proc.LogPath())
			default:
				e.err = err
			}
		}
		cancel()
	}
	r.wEnd = time.Now()
	_ = proc.Stop()
	e.usage = proc.Usage()
	r.final, r.end = r.obs.settled(context.WithoutCancel(ctx), c.Count, quietFor, c.DrainTimeout)
	if r.final.accepted >= c.Count && r.end.Before(r.wEnd) {
		r.end = r.wEnd // cannot have been counted before it was sent; the poll was coarser
	}
	close(stopObs)
	<-obsDone
	r.obs.finish(r.final)
	return nil
}

// line reads the impl's "result sent=N seconds=S" line.
func (e *external) line(l string) {
	rep, ok := ParseResultLine(l)
	if !ok {
		return
	}
	e.mu.Lock()
	e.self = &rep
	e.mu.Unlock()
}

func (e *external) report() *SelfReport {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.self
}

// ParseResultLine reads an external publisher's "result sent=N seconds=S" line.
func ParseResultLine(l string) (SelfReport, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(l), "result ")
	if !ok {
		return SelfReport{}, false
	}
	var rep SelfReport
	var haveSent, haveSecs bool
	for _, f := range strings.Fields(rest) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "sent":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return SelfReport{}, false
			}
			rep.Sent, haveSent = n, true
		case "seconds":
			s, err := strconv.ParseFloat(v, 64)
			if err != nil || s < 0 || s != s || s > 1e9 {
				return SelfReport{}, false
			}
			rep.Seconds, haveSecs = s, true
		}
	}
	if !haveSent || !haveSecs {
		return SelfReport{}, false
	}
	if rep.Seconds > 0 {
		rep.Rate = float64(int64(float64(rep.Sent)/rep.Seconds*10)) / 10
	}
	return rep, true
}

func boolEnv(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
