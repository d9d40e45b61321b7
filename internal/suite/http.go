package suite

import (
	"context"
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/supervise"
)

// http runs a hello or http scenario run: closed loop for peak throughput, or open loop at a
// fixed rate (the given rate, or a share of the closed-loop peer's peak).
func (st *state) http(ctx context.Context, r scenario.Run) (*result.Record, error) {
	rate, err := st.rate(r)
	if err != nil {
		return nil, err
	}
	url, _ := r.Params["url"].(string)
	var sut *supervise.Process
	if r.Workload == "hello" {
		if sut, url, err = st.startHello(ctx, r); err != nil {
			return nil, err
		}
		defer sut.Stop()
	}
	cfg, err := httpOptions(r, url, rate).Config()
	if err != nil {
		return nil, err
	}
	if sut == nil { // a started hello server was already probed by supervise
		if err := httpbench.Probe(ctx, cfg.Target, cfg.Timeout); err != nil {
			return nil, err
		}
	}
	cfg.OnSecond = st.opts.OnSecond
	t0 := time.Now()
	rec, err := httpbench.Measure(ctx, cfg, httpbench.Meta{
		Workload: r.Workload, Impl: r.Impl, Mode: "async", Command: st.opts.Command, Params: r.Params,
	})
	if err != nil || sut == nil {
		return rec, err
	}
	if sut.Exited() {
		return rec, fmt.Errorf("the server exited during the run: %s", sut.Output())
	}
	rec.Processes = append(rec.Processes, result.NewProcess(r.Impl, "sut", sut.PID(), sut.Usage(), time.Since(t0)))
	return rec, nil
}

func httpOptions(r scenario.Run, url string, rate float64) httpbench.Options {
	o := httpbench.Options{
		URL: url, Duration: r.Duration, Warmup: r.Warmup, Timeout: 2 * time.Second,
		Connections: 10, Rate: rate, RateSet: rate > 0, Method: "GET",
	}
	if v, ok := r.Params["connections"].(int64); ok {
		o.Connections = int(v)
	}
	if v, ok := r.Params["threads"].(int64); ok {
		o.Threads = int(v)
	}
	if v, ok := r.Params["timeout"].(time.Duration); ok {
		o.Timeout = v
	}
	if v, ok := r.Params["method"].(string); ok && v != "" {
		o.Method = v
	}
	if v, ok := r.Params["keepalive"].(bool); ok {
		o.NoKeepAlive = !v
	}
	if v, ok := r.Params["expect_body"].(string); ok {
		o.ExpectBody = v
	}
	if r.Workload == "hello" {
		o.ExpectStatus, o.ExpectBody = []int{200}, "^Hello world!$"
	}
	return o
}

// rate returns 0 for a closed loop, else the open loop's rate.
func (st *state) rate(r scenario.Run) (float64, error) {
	if load, _ := r.Params["load"].(string); load != "open" {
		return 0, nil
	}
	if v, _ := r.Params["rate"].(float64); v > 0 {
		return v, nil
	}
	share := 0.5
	if v, ok := r.Params["rate_of_peak"].(float64); ok && v > 0 {
		share = v
	}
	peer, ok := st.suite.Peer(r, "load", "closed")
	if !ok || peer.Index > r.Index {
		return 0, fmt.Errorf("%w: add load: closed to the scenario, or set rate", errNoPeer)
	}
	rec := st.done[peer.ID]
	if rec == nil || rec.Throughput.Mean < 1 {
		return 0, fmt.Errorf("%w: its run %s failed", errNoPeer, peer.ID)
	}
	return rec.Throughput.Mean * share, nil
}

// startHello starts `iobench serve hello` on the run's address (or a free one).
func (st *state) startHello(ctx context.Context, r scenario.Run) (*supervise.Process, string, error) {
	addr, _ := r.Params["listen"].(string)
	if addr == "" || addr == "auto" {
		var err error
		if addr, err = supervise.FreeAddr(); err != nil {
			return nil, "", err
		}
	}
	p, err := supervise.Start(ctx, supervise.Spec{
		Name: "iobench serve hello", Path: st.opts.Binary,
		Args: []string{"serve", "hello", "--listen", addr}, ReadyAddr: addr,
	})
	if err != nil {
		return nil, "", err
	}
	return p, "http://" + addr + "/", nil
}
