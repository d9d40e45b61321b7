package collect

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/agent"
	"github.com/iobench/iobench/internal/merge"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// record is agent i of n's record of run with one latency sample per millisecond of ms.
func record(run string, i, n, ms int) *result.Record {
	h := stats.NewHistogram()
	for j := 1; j <= ms; j++ {
		h.Record(time.Duration(j) * time.Millisecond)
	}
	start := time.Unix(1_800_000_000, 0)
	return &result.Record{
		Workload: "http", LoadModel: "closed", Target: "http://127.0.0.1:1/", Parameters: map[string]any{"connections": 1},
		StartedAt: start, Duration: result.Duration(time.Second),
		Counts:  result.Counts{Attempted: int64(ms), Succeeded: int64(ms)},
		Latency: h.Summary(),
		Agent:   &result.Agent{Index: i, Count: n, Run: run, Started: start},
	}
}

// serve starts a collector on loopback and returns it with the URL agents post to.
func serve(t *testing.T, cfg Config) (*Collector, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	cfg.Log = &log
	c := New(cfg)
	srv := c.Serve(l)
	t.Cleanup(func() { srv.Close(); t.Log(log.String()) })
	return c, "http://" + l.Addr().String() + "/records"
}

// send posts rec as an agent does, through the agent's own client.
func send(url string, rec *result.Record) error {
	return agent.Send(context.Background(), url, rec, 5*time.Second)
}

func TestCollectOutOfOrderDuplicateOtherRun(t *testing.T) {
	c, url := serve(t, Config{Agents: 3, Run: "r", Timeout: 10 * time.Second})
	for _, i := range []int{2, 0} {
		if err := send(url, record("r", i, 3, 100*(i+1))); err != nil {
			t.Fatalf("agent %d/3: %v", i, err)
		}
	}
	if err := send(url, record("r", 2, 3, 300)); err == nil || !strings.Contains(err.Error(), "already in") {
		t.Fatalf("a duplicate of agent 2/3: %v, want a refusal saying it is already in", err)
	}
	if err := send(url, record("other", 1, 3, 200)); err == nil || !strings.Contains(err.Error(), `run "other"`) {
		t.Fatalf("agent 1/3 of another run: %v, want a refusal naming the run", err)
	}
	if err := send(url, record("r", 1, 2, 200)); err == nil || !strings.Contains(err.Error(), "this run has 3 agents") {
		t.Fatalf("agent 1/2 of this run: %v, want a refusal naming the split", err)
	}
	if err := send(url, record("r", 1, 3, 200)); err != nil {
		t.Fatalf("agent 1/3: %v", err)
	}
	rec, err := c.Wait(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Counts.Succeeded != 600 || rec.Latency.Count != 600 {
		t.Fatalf("merged %d successes, %d samples; want 600 each: each agent once", rec.Counts.Succeeded, rec.Latency.Count)
	}
	if len(rec.Warnings) < 3 {
		t.Fatalf("warnings %q: want the three refusals named", rec.Warnings)
	}
}

func TestCollectMissingAgent(t *testing.T) {
	c, url := serve(t, Config{Agents: 3, Timeout: 300 * time.Millisecond})
	if err := send(url, record("r", 1, 3, 10)); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	_, err := c.Wait(context.Background(), nil)
	if !errors.Is(err, merge.ErrMissing) || !strings.Contains(err.Error(), "agents 0/3, 2/3") {
		t.Fatalf("Wait: %v, want agents 0/3 and 2/3 named missing", err)
	}
	if waited := time.Since(begin); waited > 5*time.Second {
		t.Fatalf("waited %v for a 300ms timeout", waited)
	}
}

func TestCollectRefusesWhatIsNotARecord(t *testing.T) {
	_, url := serve(t, Config{Agents: 1, Timeout: time.Second})
	plain := record("r", 0, 1, 1)
	plain.Agent = nil
	if err := send(url, plain); err == nil || !strings.Contains(err.Error(), "no agent section") {
		t.Fatalf("a record without an agent section: %v, want a refusal", err)
	}
}
