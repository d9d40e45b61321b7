// Package suite runs iobench's main job: the built-in systems under test measured the way each
// seed should have been, one after another, with every record kept. Today it holds the hello pair
// (peak throughput closed-loop, then latency open-loop at half that rate).
package suite

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/supervise"
)

// HelloOptions configure the hello pair.
type HelloOptions struct {
	Binary      string        // the iobench executable that serves hello
	Duration    time.Duration // each measured phase
	Warmup      time.Duration
	Connections int
	Threads     int
	Command     []string
	OnSecond    func(phase string, s engine.Snapshot)
}

// Hello starts `iobench serve hello` on a free port, measures it closed-loop for its peak rate and
// open-loop at half that rate for latency, and returns both records.
func Hello(ctx context.Context, o HelloOptions) (closed, open *result.Record, err error) {
	addr, err := supervise.FreeAddr()
	if err != nil {
		return nil, nil, err
	}
	sut, err := supervise.Start(ctx, supervise.Spec{
		Name: "iobench serve hello", Path: o.Binary,
		Args: []string{"serve", "hello", "--listen", addr}, ReadyAddr: addr,
	})
	if err != nil {
		return nil, nil, err
	}
	defer sut.Stop()
	closed, err = helloPhase(ctx, o, sut, addr, 0)
	if err != nil || closed.Interrupted {
		return closed, nil, err
	}
	rate := closed.Throughput.Mean / 2
	if rate < 1 {
		return closed, nil, fmt.Errorf("hello: the closed loop completed no request; cannot choose an open-loop rate: %s", sut.Output())
	}
	open, err = helloPhase(ctx, o, sut, addr, rate)
	return closed, open, err
}

func helloPhase(ctx context.Context, o HelloOptions, sut *supervise.Process, addr string, rate float64) (*result.Record, error) {
	opts := httpbench.Options{
		URL: "http://" + addr + "/", Threads: o.Threads, Connections: o.Connections,
		Duration: o.Duration, Warmup: o.Warmup, Timeout: 2 * time.Second,
		Rate: rate, RateSet: rate > 0, ExpectStatus: []int{200}, ExpectBody: "^Hello world!$",
	}
	cfg, err := opts.Config()
	if err != nil {
		return nil, err
	}
	phase := "closed"
	if rate > 0 {
		phase = "open"
	}
	if o.OnSecond != nil {
		cfg.OnSecond = func(s engine.Snapshot) { o.OnSecond("hello "+phase, s) }
	}
	sut.Mark()
	t0 := time.Now()
	rec, err := httpbench.Measure(ctx, cfg, httpbench.Meta{Workload: "hello", Impl: "go-hello", Mode: "async", Command: o.Command})
	if err != nil {
		return nil, err
	}
	if sut.Exited() {
		return rec, fmt.Errorf("hello: the server exited during the run: %s", sut.Output())
	}
	rec.Processes = append(rec.Processes, httpbench.Process("serve hello", "sut", sut.PID(), sut.Usage(), time.Since(t0)))
	return rec, nil
}

// Executable returns the path of the running iobench, for starting built-in SUTs.
func Executable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the iobench executable: %w", err)
	}
	return p, nil
}
