package bus

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/impl/impltest"

	// The other workloads, so that every manifest of impls/ loads.
	_ "github.com/iobench/iobench/internal/workload/cachequeue" // every workload the repo's manifests declare
	_ "github.com/iobench/iobench/internal/workload/fanout"
	_ "github.com/iobench/iobench/internal/workload/hello"
	_ "github.com/iobench/iobench/internal/workload/publish"
)

// implsRoot is impls/ seen from this package's folder.
var implsRoot = filepath.Join("..", "..", "..", "impls")

// TestBusImpls runs every consumer impl of impls/ but the built-in go-bus (run above as the test
// binary) on the real RabbitMQ and PostgreSQL, on the topology its manifest declares: each
// variant consumes a few hundred commands in the seed profile, every command and event
// accounted for exactly; then each fault-tolerant variant (one that expects no seed flaw) is
// killed half-way in the durable profile and must lose nothing; a variant that expects
// redelivered-duplicate-key is killed half-way in the seed profile, and either no redelivered
// command met its row (verified) or every failure is that flaw. The kill run is as long as the
// first (300 commands one at a time, 1000 through a prefetch of 100): the kill still strikes
// with deliveries unacked, which must come back. An impl is skipped only when the machine lacks
// one of its prerequisites, and the skip says which.
func TestBusImpls(t *testing.T) {
	t.Parallel() // beside TestBusImplsRestartBroker, on the shared broker: no other test uses its impls' queues
	impls := consumerImpls(t)
	st := privateDB(t, realStack(t))
	langs := map[string]bool{}
	for _, m := range impls {
		langs[m.Language] = true
		t.Run(m.Name, func(t *testing.T) {
			inst := install(t, m)
			for _, v := range m.Variants {
				t.Run(v.Name, func(t *testing.T) {
					n := 300
					if v.Mode == ModeAsync {
						n = 1000
					}
					rec, err := runBus(t, st, implConfig(inst, v, n, ProfileSeed, Fault{}))
					checkExact(t, rec, err, n)
					if rec.Impl != m.Name || rec.Variant != v.Name || !strings.Contains(Section(rec).Topology, TopologyOf(m).Queue) {
						t.Fatalf("record names %s:%s on %q", rec.Impl, rec.Variant, Section(rec).Topology)
					}
					idleStop(t, st, implConfig(inst, v, n, ProfileSeed, Fault{}))
					killRun(t, st, inst, v, n)
				})
			}
		})
	}
	everyLanguage(t, langs, "consumer impl of the bus")
}

// How long idleStop lets a consumer wait for messages before stopping it, and how soon after
// SIGTERM it must have exited: well within its stop.timeout, which a consumer that does not look at
// SIGTERM while it waits would use up before being SIGKILLed.
const (
	idleWait   = 500 * time.Millisecond
	promptStop = 2 * time.Second
)

// idleStop starts the consumer of c on the topology the run before it left in place, with nothing
// to consume, lets it wait for a message for idleWait, and stops it as a run does (SIGTERM, then
// SIGKILL after its stop.timeout): it must exit by itself, with status 0, within promptStop.
func idleStop(t *testing.T, st stack, c Config) {
	t.Helper()
	c, mark := onStack(t, st, c)
	r := &run{cfg: c, t: newTally(0, 0), deadline: time.Now().Add(time.Minute)}
	r.env = sutEnv(&c, "amqp")
	p, err := r.launch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(idleWait)
	start := time.Now()
	_ = p.Stop()
	took := time.Since(start)
	exit := p.Wait(t.Context())
	if left := consumersAlive(mark); len(left) > 0 {
		t.Errorf("consumer processes left running: %v", left)
	}
	if took > promptStop || exit != nil {
		t.Fatalf("idle consumer: stopped %v after SIGTERM (want at most %v, by itself): %v", took.Round(time.Millisecond), promptStop, exit)
	}
	t.Logf("idle consumer: exited %v after SIGTERM", took.Round(time.Millisecond))
}

// TestBusImplsRestartBroker restarts a private RabbitMQ half-way through a durable run of every
// variant that a consumer impl of impls/ says survives it (restart_broker): nothing may be lost
// or stored twice, the consumer must keep running (one start, no kill-sut behind its back), and
// the deliveries the restart interrupted must come back flagged as redelivered (restartRun).
// Each language must have one.
func TestBusImplsRestartBroker(t *testing.T) {
	t.Parallel() // its broker is its own
	impls := consumerImpls(t)
	st := privateDB(t, restartableStack(t))
	langs := map[string]bool{}
	for _, m := range impls {
		survivors := ManifestOf(m).RestartBroker
		if len(survivors) == 0 {
			continue
		}
		langs[m.Language] = true
		t.Run(m.Name, func(t *testing.T) {
			inst := install(t, m)
			for _, name := range survivors {
				v, _ := m.Variant(name)
				t.Run(name, func(t *testing.T) { restartRun(t, st, inst, v) })
			}
		})
	}
	everyLanguage(t, langs, "bus consumer that survives a broker restart")
}

// restartRun restarts the broker at half of the commands of a durable run of v and checks the
// accounting: exact, one consumer start, and redeliveries counted: every command handled twice
// came back flagged as redelivered, and an async variant, which holds a prefetch of deliveries,
// had some (a sync one may be between two messages when the broker stops). An async variant's
// 2000 commands put the restart after 1000, its prefetch of 100 deliveries in flight.
func restartRun(t *testing.T, st stack, inst *impl.Installation, v impl.Variant) {
	t.Helper()
	n := 1000
	if v.Mode == ModeAsync {
		n = 2000
	}
	c := implConfig(inst, v, n, ProfileDurable, RestartBroker)
	c.Timeout = 90 * time.Second
	rec, err := runBus(t, st, c)
	checkExact(t, rec, err, n)
	b := Section(rec)
	if b.ConsumerStarts != 1 || b.FaultAtCommands < int64(n/2) || b.DuplicateCommands > b.RedeliveredCommands ||
		v.Mode == ModeAsync && b.RedeliveredCommands == 0 {
		t.Fatalf("restart-broker: %+v", *b)
	}
	t.Logf("restart-broker: fault after %d commands, recovery %v; %d commands handled (%d twice), %d redelivered; %d events seen (%d twice), %d redelivered",
		b.FaultAtCommands, b.FaultRecovery.Std(), b.CommandsHandled, b.DuplicateCommands, b.RedeliveredCommands,
		b.EventsSeen, b.DuplicateEvents, b.RedeliveredEvents)
}

// consumerImpls returns the consumer impls of impls/ but the built-in go-bus (run above as the
// test binary); a manifest that does not load fails the test.
func consumerImpls(t *testing.T) []*impl.Manifest {
	t.Helper()
	entries, err := impl.List(implsRoot)
	if err != nil {
		t.Fatal(err)
	}
	var out []*impl.Manifest
	for _, e := range entries {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Dir, e.Err)
			continue
		}
		if _, ok := e.Manifest.Workloads[Name]; ok && e.Manifest.Language != "go" {
			out = append(out, e.Manifest)
		}
	}
	return out
}

// everyLanguage fails the test when one of the non-Go languages had no impl of what it names.
func everyLanguage(t *testing.T, langs map[string]bool, what string) {
	t.Helper()
	for _, l := range []string{"node", "php", "python"} {
		if !langs[l] {
			t.Errorf("no %s %s in impls/", l, what)
		}
	}
}

// implState is one state directory for every impl test of the binary (TestMain makes it): each
// impl is installed once, though TestBusImpls and TestBusImplsRestartBroker run side by side.
var implState string

// installing serializes the installs of one impl (by name) between tests running in parallel.
var installing sync.Map

// install installs m into implState, or skips the test (impltest.InstallOrSkip); a second call
// finds it installed.
func install(t *testing.T, m *impl.Manifest) *impl.Installation {
	t.Helper()
	mu, _ := installing.LoadOrStore(m.Name, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	return impltest.InstallOrSkip(t, m, implState)
}

// privateDB gives st a database of its own on the same PostgreSQL, dropped at the end: the
// test services are shared, a bus run empties the customers table of its database, and the
// tests that run in parallel each have theirs.
func privateDB(t *testing.T, st stack) stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := openSQL(ctx, st.dbURL, 1)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("bus_test_%d_%d", os.Getpid(), runs.Add(1))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatalf("a private database for the test: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
		admin.Close()
	})
	u, err := url.Parse(st.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	st.dbURL = u.String()
	return st
}

func implConfig(inst *impl.Installation, v impl.Variant, n int, profile string, f Fault) Config {
	c := Config{N: n, Profile: profile, Fault: f, Concurrency: DefaultConcurrency, Prefetch: DefaultPrefetch}
	UseImpl(&c, inst, v)
	return c
}

// killRun kills the consumer at half of n commands: a fault-tolerant variant in the durable
// profile must lose nothing; a variant expecting redelivered-duplicate-key, in the seed profile,
// is verified or shows that flaw only.
func killRun(t *testing.T, st stack, inst *impl.Installation, v impl.Variant, n int) {
	t.Helper()
	kill := Fault{Kind: FaultKillSUT, At: 0.5}
	if !v.Expects("redelivered-duplicate-key") {
		rec, err := runBus(t, st, implConfig(inst, v, n, ProfileDurable, kill))
		checkExact(t, rec, err, n)
		if b := Section(rec); b.ConsumerStarts != 2 || b.FaultAtCommands < int64(n/2) {
			t.Fatalf("fault: %+v", *b)
		}
		t.Logf("kill-sut durable: %d commands handled (%d twice), %d redelivered; %d events seen, %d duplicates",
			Section(rec).CommandsHandled, Section(rec).DuplicateCommands, Section(rec).RedeliveredCommands, Section(rec).EventsSeen, Section(rec).DuplicateEvents)
		return
	}
	rec, err := runBus(t, st, implConfig(inst, v, n, ProfileSeed, kill))
	if rec == nil {
		t.Fatalf("kill-sut seed: %v", err)
	}
	b := Section(rec)
	switch {
	case err == nil && b.Verified:
		t.Logf("kill-sut seed: no redelivered command met its row this time (%d redelivered)", b.RedeliveredCommands)
	case errors.Is(err, ErrVerify) && FlawReproduced(rec) && rec.Counts.Errors[ErrClassHandler] == b.FailedCommands:
		t.Logf("kill-sut seed: seed flaw reproduced: %v", err)
	default:
		t.Fatalf("kill-sut seed: err=%v bus=%+v", err, *b)
	}
}
