package inject

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/relay/relaytest"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestMain lets the test binary be `iobench serve proxy` when Start runs it.
func TestMain(m *testing.M) {
	workloadtest.ServeMain()
	os.Exit(m.Run())
}

// TestProxyChild: a relay started as a child process counts the round trips made after Mark
// only, says what it added, and is recorded as its own role.
func TestProxyChild(t *testing.T) {
	const rounds, latency = 20, time.Millisecond
	up := relaytest.Server(t, relaytest.Echo)
	target := Target{Spec: Spec{Service: "database", Latency: latency}, Use: Use{Role: "database", Kind: "postgres", Var: "X"}}
	set, vars, err := StartAll(context.Background(), []Target{target}, map[string]string{"X": "postgres://u@" + up + "/db"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Stop()
	if want := "postgres://u@" + set[0].Addr + "/db"; vars["X"] != want {
		t.Fatalf("the SUT's URL is %q, want %q", vars["X"], want)
	}
	c, err := net.Dial("tcp", set[0].Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, 1)
	trip := func() {
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
	}
	trip() // before Mark: not counted
	if err := set.Mark(); err != nil {
		t.Fatal(err)
	}
	for range rounds {
		trip()
	}
	time.Sleep(20 * time.Millisecond) // the last answer's accounting
	rec := &result.Record{}
	set.Record(rec, rounds/2, time.Second)
	e := SectionOf(rec)["postgres"]
	if e == nil {
		t.Fatalf("no inject.postgres in %+v (warnings %v)", rec.Sections, rec.Warnings)
	}
	if e.Turns != rounds || e.TurnsPerOp != 2 || e.Connections != 1 || e.LatencyUS != 1000 {
		t.Errorf("entry %+v: want %d turns, 2 per operation, 1 connection, latency 1000 µs", *e, rounds)
	}
	if e.AddedUSPerTurn < 1000 { // how close to L is the relay's own test's (a busy machine adds to it)
		t.Errorf("added %.0f µs per turn, below the 1000 asked", e.AddedUSPerTurn)
	}
	if len(rec.Processes) != 1 || rec.Processes[0].Role != Role || rec.Processes[0].PID == 0 {
		t.Errorf("processes %+v, want the relay as role %s", rec.Processes, Role)
	}
}

// TestServeProxyBadInput: `iobench serve proxy` is registered, and refuses bad settings in one
// line with exit code 2.
func TestServeProxyBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--latency", "1ms"},
		{"--upstream", "127.0.0.1:1", "--latency", "-1ms"},
		{"--upstream", "127.0.0.1:1", "--jitter", "5"},
	} {
		code, _, stderr := workloadtest.Run(append([]string{"serve", "proxy"}, args...)...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("serve proxy %v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}
