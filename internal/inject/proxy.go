package inject

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/iobench/iobench/internal/cpuset"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/relay"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/sut"
)

// Role is the role of the relay's process in a record.
const Role = "proxy"

// statsTimeout bounds the wait for the relay's answer to a stats line.
const statsTimeout = 5 * time.Second

// Proxy is `iobench serve proxy` running in front of one service: Addr is where the SUT connects.
type Proxy struct {
	Target
	Addr  string
	p     *sut.Process
	stats chan relay.Stats
	mark  relay.Stats
}

// Options say how to start the relays: the iobench executable ("" is the running one, which in a
// test is the test binary standing in for iobench), where their stderr goes, and the CPUs to pin
// them to (none: anywhere).
type Options struct {
	Executable string
	Log        *slog.Logger
	CPUs       cpuset.Set
}

// Start runs a relay for t in front of upstream (host:port) on a free port of 127.0.0.1 and
// returns once it accepts connections.
func Start(ctx context.Context, t Target, upstream string, o Options) (*Proxy, error) {
	exe := o.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("proxy for %s: %w", t.Kind, err)
		}
	}
	addr, err := sut.FreeAddr()
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	px := &Proxy{Target: t, Addr: addr, stats: make(chan relay.Stats, 1)}
	px.p, err = sut.Start(ctx, sut.Options{
		Name: "relay (" + t.Kind + ")",
		Argv: []string{exe, "serve", relay.ServeName, "--listen", addr, "--upstream", upstream,
			"--latency", t.Latency.String(), "--jitter", t.Jitter.String()},
		Env:    sut.Environ(),
		Ready:  sut.Ready{TCP: addr, Timeout: 10 * time.Second},
		Stream: px.read,
		OnLine: func(line string) { log.Info("proxy", "service", t.Kind, "stderr", line) },
		Log:    log,
		CPUs:   o.CPUs,
	})
	if err != nil {
		return nil, fmt.Errorf("proxy for %s: %w", t.Kind, err)
	}
	return px, nil
}

// read takes the relay's stats lines from its standard output; the latest one not yet asked for
// replaces an older.
func (px *Proxy) read(stdout io.Reader, _ func()) error {
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		s, ok := relay.ParseStats(sc.Text())
		if !ok {
			continue
		}
		select {
		case <-px.stats:
		default:
		}
		px.stats <- s
	}
	return sc.Err()
}

// Stats asks the relay for its counts.
func (px *Proxy) Stats() (relay.Stats, error) {
	select {
	case <-px.stats: // a stale answer
	default:
	}
	if err := px.p.Send(relay.StatsCommand); err != nil {
		return relay.Stats{}, err
	}
	t := time.NewTimer(statsTimeout)
	defer t.Stop()
	select {
	case s := <-px.stats:
		return s, nil
	case <-px.p.Done():
		return relay.Stats{}, fmt.Errorf("proxy for %s exited: %s", px.Kind, px.p.Tail())
	case <-t.C:
		return relay.Stats{}, fmt.Errorf("proxy for %s did not answer within %v", px.Kind, statsTimeout)
	}
}

// Mark restarts the counts and the CPU account from now: the SUT has become ready.
func (px *Proxy) Mark() error {
	s, err := px.Stats()
	if err != nil {
		return err
	}
	px.mark = s
	px.p.Mark()
	return nil
}

// Entry is what the relay achieved since Mark, over ops operations, for the record.
func (px *Proxy) Entry(ops int64) (*Entry, error) {
	s, err := px.Stats()
	if err != nil {
		return nil, err
	}
	d := s.Sub(px.mark)
	d.Conns = s.Conns // those opened before the SUT was ready too
	return entry(px.Target, d, ops), nil
}

// Usage is the relay's CPU since Mark and its peak memory.
func (px *Proxy) Usage() procstat.Usage { return px.p.Usage() }

// Process is the relay's line of a record's processes, over wall.
func (px *Proxy) Process(wall time.Duration) result.Process {
	return result.NewProcess("relay ("+px.Kind+")", Role, px.p.PID(), px.Usage(), wall)
}

// Stop stops the relay.
func (px *Proxy) Stop() { _ = px.p.Stop() }
