package collect

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/httpcmd"
	"github.com/iobench/iobench/internal/merge"
)

// startLead is how long the agents are given to start before their warm-up begins.
const startLead = 2 * time.Second

// Local runs an --agents-local run: N agent processes of this executable (each handing off to the
// lean image as iobench http does) on loopback, given one start instant and run id, posting their
// records to a collector of this process, whose merged record is printed.
func Local(ctx context.Context, run httpcmd.LocalRun) error {
	self, err := os.Executable()
	if err != nil {
		return cli.Failed(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return cli.Failed(err)
	}
	defer l.Close()
	start := time.Now().Add(startLead + run.Warmup).Round(time.Millisecond)
	id := fmt.Sprintf("local-%d", start.UnixMilli())
	wait := 10 * time.Minute
	if run.Measure > 0 {
		wait = startLead + run.Warmup + run.Measure + 30*time.Second
	}
	c := New(Config{Agents: run.Agents, Run: id, Timeout: wait, Log: run.Err})
	fmt.Fprintf(run.Err, "agents-local: %d agents measuring from %s, run %s\n", run.Agents, start.Format("15:04:05.000"), id)
	srv := c.Serve(l)
	base := append(slices.Clone(run.Args), "--start-at", fmt.Sprintf("@%.3f", float64(start.UnixMilli())/1000),
		"--run", id, "--collector", "http://"+l.Addr().String()+"/records", "--quiet")
	agents := startAgents(ctx, self, base, run.Agents)
	rec, err := c.Wait(ctx, run.Command)
	failed := agents.wait()
	Stop(srv)
	if err != nil {
		return cli.Failed(fmt.Errorf("%w%s", err, failed))
	}
	if err := merge.Print(run.Out, run.Err, rec, run.JSON, run.Text); err != nil {
		return cli.Failed(err)
	}
	if err := httpbench.NoSuccess(rec); err != nil {
		return cli.Failed(err)
	}
	return nil
}

// agentProcs are the agents' processes.
type agentProcs struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	failed []string
}

func startAgents(ctx context.Context, self string, base []string, n int) *agentProcs {
	p := &agentProcs{}
	for i := 0; i < n; i++ {
		args := append(slices.Clone(base), "--agent", fmt.Sprintf("%d/%d", i, n))
		cmd := exec.CommandContext(ctx, self, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if err := cmd.Run(); err != nil {
				p.mu.Lock()
				p.failed = append(p.failed, fmt.Sprintf("agent %d/%d: %v: %s", i, n, err, strings.TrimSpace(stderr.String())))
				p.mu.Unlock()
			}
		}()
	}
	return p
}

// wait waits for every agent to end and returns what the failed ones said, or "".
func (p *agentProcs) wait() string {
	p.wg.Wait()
	if len(p.failed) == 0 {
		return ""
	}
	return "; " + strings.Join(p.failed, "; ")
}
