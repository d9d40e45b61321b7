package cachequeue

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// faultParam is cachequeue's fault parameter.
var faultParam = scenario.ParamSpec{Type: scenario.String, Check: fault.CheckParam,
	Doc: "faults during the measured phase: kill-sut@P%, restart-redis@P% or restart-memcached@P% (the route's store, for a variant that opts in), several joined by ;"}

// storeService names the service whose restart a route's store feels: Redis for the Redis and
// Predis routes, Memcached for /cache/memcached; "" for the others.
func storeService(route string) string {
	switch {
	case strings.HasSuffix(route, "/redis"), strings.HasSuffix(route, "/predis"):
		return RedisRole.Name
	case route == "/cache/memcached":
		return MemcachedRole.Name
	}
	return ""
}

// FaultAccount is what a cachequeue run with faults counts beside the store (Record.Faults).
type FaultAccount struct {
	// OK are the responses of status 2xx (the only ones counted as answered); Gateway nginx's
	// 502 and 504 while PHP-FPM was down (some may have counted); Other the other statuses.
	OK      int64 `json:"ok"`
	Gateway int64 `json:"gateway"`
	Other   int64 `json:"other_status"`
	// StoreLost is what the store held just before a restart emptied it (Redis without
	// persistence), carried into Change; StoreLoss says it in words.
	StoreLost int64  `json:"store_lost,omitempty"`
	StoreLoss string `json:"store_loss,omitempty"`
	// Queued are pushes answered 2xx but missing from the store after a kill-sut of a
	// /queue/zmq impl: still in libzmq's in-process queue of the killed process.
	Queued int64 `json:"queued_in_killed,omitempty"`
	// Unread bounds what Memcached lost between the read of its count and its stop: the 2xx
	// answers in flight over its restart (it cannot pause writes as Redis does).
	Unread int64 `json:"unread_at_restart,omitempty"`
}

// faults are a run's faults on a route: the checks, the stores' restarts and what they count.
type faults struct {
	route string
	st    store
	insts map[string]*service.Instance
	acct  FaultAccount
	specs []fault.Spec
}

// faultsOf reads the run's faults: kill-sut, and a restart of the route's store when iobench
// started it and the variant opts in (restart_redis, restart_memcached in its manifest).
func faultsOf(r scenario.Run, t workload.Target, route string, a Addrs, st store) (*faults, web.Faults, error) {
	wf, err := web.FaultsOf(r)
	if err != nil || len(wf.Specs) == 0 {
		return nil, wf, err
	}
	f := &faults{route: route, st: st, insts: map[string]*service.Instance{}, specs: wf.Specs}
	for _, inst := range a.services {
		if inst.Name == storeService(route) && inst.Kind == service.KindLocal {
			f.insts[inst.Name] = inst
			wf.Restart = append(wf.Restart, inst.Name)
		}
	}
	m := ManifestOf(t.Inst.Manifest)
	wf.OptedIn = func(svc string) bool { return m.restarts(svc, t.Variant.Name) }
	wf.Act = f.restart
	return f, wf, nil
}

// restart is a store's restart: its count read just before the stop (Redis with its writes
// paused first, so that none lands between), carried over, since the store comes back empty.
func (f *faults) restart(ctx context.Context, s fault.Spec, hit func()) error {
	inst := f.insts[s.Service]
	c, ok := f.st.(carrier)
	if inst == nil || !ok {
		return fmt.Errorf("fault %s: %s has no store of %s to restart", s, f.route, s.Service)
	}
	if s.Service == RedisRole.Name {
		if err := pauseWrites(ctx, inst.URL); err != nil {
			return fmt.Errorf("fault %s: pausing Redis's writes: %w", s, err)
		}
	}
	held, err := c.carry(ctx)
	if err != nil {
		return fmt.Errorf("fault %s: reading %s before the stop: %w", s, f.st.describe(), err)
	}
	f.acct.StoreLost += held
	f.acct.StoreLoss = fmt.Sprintf("%s lost the %d it held at the restart (it keeps nothing across one: iobench runs it without persistence); counted from before the stop",
		inst.Name, f.acct.StoreLost)
	if s.Service == RedisRole.Name {
		hit() // nothing is written from the read on: the fault takes effect there
	} else {
		// Memcached cannot pause: what lands between the read and the stop is lost unread.
		// The fault takes effect at the end of the restart, so that the 2xx answers in flight
		// over it (InFlight "ok") bound that loss (check).
		defer hit()
	}
	if err := inst.Restart(ctx); err != nil {
		return err
	}
	return redial(ctx, c)
}

// redial reads the store until its client has dialled the restarted server again: the first
// read after a restart finds the old connection broken.
func redial(ctx context.Context, c carrier) error {
	var err error
	for range 3 {
		if _, err = c.read(ctx); err == nil {
			return nil
		}
	}
	return fmt.Errorf("reading the store after its restart: %w", err)
}

// carrier is a store whose count can be carried over a restart that empties it.
type carrier interface {
	// carry reads the store's value now and moves its base so that what after counts from
	// the empty store adds to it; it returns the value read (what the store loses).
	carry(ctx context.Context) (int64, error)
	read(ctx context.Context) (int64, error)
}

func (c *counter) carry(ctx context.Context) (int64, error) {
	n, err := c.read(ctx)
	c.base -= n
	return n, err
}

func (c *counter) read(ctx context.Context) (int64, error) {
	n, _, err := c.kv.Get(ctx, CounterKey)
	return n, err
}

func (l *list) carry(ctx context.Context) (int64, error) {
	n, err := l.read(ctx)
	l.base -= n
	return n, err
}

func (l *list) read(ctx context.Context) (int64, error) { return l.q.Len(ctx) }

// pauseWrites stops Redis's clients' writes for 10 s (CLIENT PAUSE WRITE; the restart ends it
// sooner), so that the count read next is the one the restart loses.
func pauseWrites(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return err
	}
	defer nc.Close()
	args := []string{"CLIENT", "PAUSE", "10000", "WRITE"}
	cmd := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		cmd += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := nc.Write([]byte(cmd)); err != nil {
		return err
	}
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+OK") {
		return fmt.Errorf("CLIENT PAUSE: %s", strings.TrimSpace(line))
	}
	return nil
}

// check is the store's count under faults: every 2xx counted, nothing beyond the 2xx, the
// gateway answers and the requests without an answer; after a kill-sut of /queue/zmq, the
// pushes still queued in the killed process are their own class.
func (f *faults) check(c *Record, res *engine.Result, sec *fault.Record) {
	a := &f.acct
	for status, n := range sec.Statuses {
		if status == "502" || status == "504" {
			a.Gateway += n
		} else {
			a.Other += n
		}
	}
	a.OK = res.Answered - a.Gateway - a.Other
	counted := c.Change
	if c.Consumer != nil {
		counted += c.Consumer.Received
	}
	hi := a.OK + a.Gateway + c.Unanswered
	if f.route == "/queue/zmq" && f.killed() && counted < a.OK {
		a.Queued = a.OK - counted
	}
	a.Unread = unread(sec)
	lo := a.OK - a.Queued - a.Unread
	c.Faults = a
	switch {
	case counted >= lo && counted <= hi:
		c.Counted = true
		c.Detail = fmt.Sprintf("%d counted for %d answered 2xx (warm-up included), %d gateway answers (502/504) and %d requests without one", counted, a.OK, a.Gateway, c.Unanswered)
	case counted < lo:
		c.Counted = false
		c.Detail = fmt.Sprintf("%d counted for %d answered 2xx (warm-up included): %d lost that no fault explains", counted, a.OK, lo-counted)
	default:
		c.Counted = false
		c.Detail = fmt.Sprintf("%d counted: %d more than the %d answered 2xx, %d gateway answers and %d requests without one", counted, counted-hi, a.OK, a.Gateway, c.Unanswered)
	}
	if a.Queued > 0 {
		c.Detail += fmt.Sprintf("; %d pushes answered but still queued in the killed process (libzmq's in-process queue)", a.Queued)
	}
	if a.StoreLoss != "" {
		c.Detail += "; " + a.StoreLoss
	}
	if a.Unread > 0 {
		c.Detail += fmt.Sprintf(", and up to %d more that landed between the read and the stop (2xx answers in flight over Memcached's restart)", a.Unread)
	}
}

// unread is the 2xx answers in flight over Memcached's restarts: increments that may have landed
// between the read of the count and the stop, which the store lost unread.
func unread(sec *fault.Record) int64 {
	var n int64
	for _, e := range sec.Faults {
		if strings.HasPrefix(e.Fault, "restart-"+MemcachedRole.Name+"@") {
			n += e.InFlight["ok"]
		}
	}
	return n
}

func (f *faults) killed() bool {
	return slices.ContainsFunc(f.specs, func(s fault.Spec) bool { return s.Kind == fault.KillSUT })
}

// apply checks the record of a run with faults (check), its case naming them.
func (f *faults) apply(rec *result.Record, c *Record, res *engine.Result) {
	if f == nil {
		return
	}
	if sec := fault.Section(rec); sec != nil && res != nil {
		f.check(c, res, sec)
	}
	rec.Case = fault.WithCase(rec.Case, rec)
}
