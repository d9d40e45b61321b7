package suite

import (
	"context"
	"fmt"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/sut"
)

// http runs a hello or http scenario run: closed loop for peak throughput, or open loop at a
// fixed rate (the given rate, or a share of the closed-loop peer's peak). A hello run starts its
// impl first and records the impl's own cost over the measured phase.
func (st *state) http(ctx context.Context, r scenario.Run) (*result.Record, error) {
	rate, err := st.rate(r)
	if err != nil {
		return nil, err
	}
	if r.Workload == "hello" {
		return st.hello(ctx, r, rate)
	}
	url, _ := r.Params["url"].(string)
	cfg, err := httpOptions(r, url, rate).Config()
	if err != nil {
		return nil, err
	}
	if err := httpbench.Probe(ctx, cfg.Target, cfg.Timeout); err != nil {
		return nil, err
	}
	return st.measure(ctx, r, cfg, "async")
}

// hello starts the run's impl on its address, loads it and adds its cost to the record.
func (st *state) hello(ctx context.Context, r scenario.Run, rate float64) (*result.Record, error) {
	s, err := st.target(ctx, r)
	if err != nil {
		return nil, err
	}
	addr, err := listenAddr(r)
	if err != nil {
		return nil, err
	}
	p, err := s.inst.Start(ctx, impl.StartOptions{Variant: s.variant.Name, Env: map[string]string{env.Listen: addr}})
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	cfg, err := httpOptions(r, "http://"+addr+"/", rate).Config()
	if err != nil {
		return nil, err
	}
	mark := time.AfterFunc(cfg.Warmup, p.Mark) // the impl's cost counts from the end of the warm-up
	defer mark.Stop()
	t0 := time.Now()
	rec, err := st.measure(ctx, r, cfg, s.variant.Mode)
	if err != nil {
		return rec, err
	}
	s.label(rec)
	select {
	case <-p.Done():
		return rec, fmt.Errorf("impl %s exited during the run: %s; log %s", s.name(), p.Tail(), p.LogPath())
	default:
	}
	rec.Processes = append(rec.Processes, result.NewProcess(s.name(), "sut", p.PID(), p.Usage(), time.Since(t0)-cfg.Warmup))
	return rec, nil
}

func (st *state) measure(ctx context.Context, r scenario.Run, cfg engine.Config, mode string) (*result.Record, error) {
	cfg.OnSecond = st.opts.OnSecond
	return httpbench.Measure(ctx, cfg, httpbench.Meta{
		Workload: r.Workload, Impl: r.Impl, Mode: mode, Command: st.opts.Command, Params: r.Params,
	})
}

// listenAddr is the run's listen parameter, or a free port of 127.0.0.1.
func listenAddr(r scenario.Run) (string, error) {
	addr, _ := r.Params["listen"].(string)
	if addr == "" || addr == "auto" {
		return sut.FreeAddr()
	}
	return addr, nil
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
