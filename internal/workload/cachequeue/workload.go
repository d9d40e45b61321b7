package cachequeue

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/units"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// Name is the cachequeue workload's id.
const Name = "cachequeue"

func init() {
	workload.Register(workload.Workload{
		Name: Name, Spec: Spec(), Manifest: manifestSection,
		Run: run, Verify: verify, Text: Text, Verified: verified,
		Command: newCommand, Serve: serveCommands, Tables: []workload.TableFunc{inject.SweepTable, fault.Table},
		Roles: map[string]service.Role{RedisRole.Name: RedisRole, MemcachedRole.Name: MemcachedRole},
	})
}

// verified is the cachequeue check of a record (workload.Workload.Verified): the store counted
// every answered request, and no more than were sent.
func verified(rec *result.Record) (bool, string) {
	switch c := Section(rec); {
	case c == nil:
		return false, "the record has no cachequeue section"
	case !c.Counted:
		return false, "the store's count: " + c.Detail
	}
	return true, ""
}

// Spec returns the workload's scenario parameters: those of every HTTP workload, at the seed's
// wrk -c20 by default, the route, whether its consumer runs, and the services by role.
func Spec() scenario.WorkloadSpec {
	spec := web.Params()
	p := spec.Params
	p["listen"] = scenario.ParamSpec{Type: scenario.Addr, Doc: "where the SUT listens: host:port, or auto for a free port of 127.0.0.1"}
	p["route"] = scenario.ParamSpec{Type: scenario.String, Enum: Routes, Required: true,
		Doc: "/cache/DRIVER increments the counter visits, /queue/DRIVER pushes visit (fake touches nothing)"}
	p["connections"] = scenario.ParamSpec{Type: scenario.Int, Check: scenario.Positive, Default: int64(20), Doc: "connections kept open (the seed's wrk -c20)"}
	p[inject.Param] = scenario.ParamSpec{Type: scenario.String, Check: inject.CheckParam, SUT: true,
		Doc: "delay the route's store's answers to the app through a relay: redis:latency=1ms[,jitter=100us] (or memcached)"}
	p["consumers"] = scenario.ParamSpec{Type: scenario.Bool, Default: false,
		Doc: "run the impl's consumer of the route beside it (its manifest's consumers; a route without one runs without)"}
	p[fault.Param] = faultParam
	spec.Services = map[string]scenario.ServiceSpec{
		"redis":     {Schemes: RedisRole.SchemeList(), Doc: "local is a Redis started by iobench (or the one of 'iobench services up')"},
		"memcached": {Schemes: MemcachedRole.SchemeList(), Doc: "local is a Memcached started by iobench"},
	}
	return spec
}

// Text writes a cachequeue record's text block: wrk's layout, then what the store counted.
func Text(w io.Writer, rec *result.Record) error {
	if err := web.Text(w, rec); err != nil {
		return err
	}
	if c := Section(rec); c != nil {
		mark := "verified"
		if !c.Counted {
			mark = "FAILED"
		}
		for _, line := range inject.Lines(rec) {
			fmt.Fprintf(w, "  %s\n", line)
		}
		fmt.Fprintf(w, "  Route %s, counted in the store (%s): %s\n", c.Route, mark, c.Detail)
		consumerText(w, rec.Impl, c)
	}
	return nil
}

// consumerText writes what the route's consumer did, or that the run asked for one and none ran.
func consumerText(w io.Writer, implName string, c *Record) {
	k := c.Consumer
	switch {
	case k != nil:
		lag := "kept up (nothing left when the load ended)"
		if k.LagMessages > 0 || k.LagSeconds >= 0.0005 {
			lag = fmt.Sprintf("%s behind when the load ended, its last message %.3fs after", units.Count(k.LagMessages), k.LagSeconds)
		}
		fmt.Fprintf(w, "  Consumer %s: received %s, drained %s msg/s; %s\n", k.Command, units.Count(k.Received), units.Rate(k.DrainRate), lag)
	case c.Consumers:
		fmt.Fprintf(w, "  No consumer ran: %s declares none for %s\n", implName, c.Route)
	}
}

// verify checks every route of every variant (checkAnswer) with the stores the impl needs.
func verify(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation) (int, error) {
	a, cleanup, err := verifyStores(ctx)
	if err != nil {
		return 0, err
	}
	defer cleanup()
	stop, err := sink(ctx, "zmq+"+a.ZMQ)
	if err != nil {
		return 0, err
	}
	defer stop()
	return web.VerifyRoutes(ctx, v, inst, Name, web.Routes{Check: web.Answer(checkAnswer), Env: a.environ()})
}

// checkAnswer returns what is wrong with a cachequeue route's answer of status 200
// (docs/IMPLS.md, "The HTTP routes"): the counter's value and a newline for /cache/{driver}, an
// empty body for /queue/{driver}.
func checkAnswer(route string, _ *http.Response, body string) []string {
	switch {
	case strings.HasPrefix(route, "/cache/") && (!strings.HasSuffix(body, "\n") || strings.TrimSpace(body) == ""):
		return []string{fmt.Sprintf("GET %s: body %q, want the counter's value and a newline", route, web.Clip(body))}
	case strings.HasPrefix(route, "/queue/") && body != "":
		return []string{fmt.Sprintf("GET %s: body %q, want an empty body", route, web.Clip(body))}
	}
	return nil
}

// sink binds the PULL side of the ZeroMQ endpoint and discards what arrives until stop: a route
// that pushes needs a peer, as a run has (iobench's drain or the consumer), since a PUSH socket
// with none blocks (zmq4's, the Go impl's, fails after 5 s).
func sink(ctx context.Context, endpoint string) (stop func(), err error) {
	q, err := open.WorkQueue(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	if l, ok := q.(interface{ Listen() error }); ok {
		if err := l.Listen(); err != nil {
			q.Close()
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			_, _ = q.Pop(ctx, 100*time.Millisecond)
		}
	}()
	return func() { cancel(); <-done; q.Close() }, nil
}
