package bus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impls/gobus"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/workload/bus/busproto"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// consumerArg makes the test binary run the reference consumer instead of the tests, so that Run
// starts (and kills) a real child process without needing the iobench binary.
const consumerArg = "iobench-bus-test-consumer"

// envDropEvents makes the test consumer hide its event reports: every event looks lost.
const envDropEvents = "IOBENCH_BUS_TEST_DROP_EVENTS"

// envRunMark marks the processes of one test run (its consumers, whatever their language), so
// that a run checks for its own leftovers while other tests' consumers run beside it.
const envRunMark = "IOBENCH_BUS_TEST_RUN"

// TestMain lets the test binary be a consumer: the test consumer (consumerArg), or iobench's own
// when go-bus's manifest runs `iobench serve bus` (workloadtest.ServeMain).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == consumerArg {
		os.Exit(testConsumer())
	}
	workloadtest.ServeMain()
	servicetest.MainWithDir(m, &implState)
}

// testConsumer is what `iobench serve bus` (package gobus) does, configured from the environment Run sets.
func testConsumer() int {
	cfg, err := gobus.ConsumerConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg.Report = os.Stdout
	if os.Getenv(envDropEvents) != "" {
		cfg.Report = dropEvents{os.Stdout}
	}
	cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := gobus.Consume(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

type dropEvents struct{ w io.Writer }

// Write passes on the lines of p that are not event reports (the consumer writes many at once).
func (d dropEvents) Write(p []byte) (int, error) {
	var keep []byte
	for line := range bytes.Lines(p) {
		if line[0] != busproto.ReportEvent {
			keep = append(keep, line...)
		}
	}
	if len(keep) > 0 {
		if _, err := d.w.Write(keep); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// stack is a broker and a database for a test run.
type stack struct {
	brokerURL, dbURL string
	broker, db       Service
}

func embedded(t *testing.T) stack {
	inst := servicetest.Instance(t, "nats")
	db := "sqlite://" + filepath.Join(t.TempDir(), "bus.db")
	return stack{brokerURL: inst.URL, dbURL: db, broker: fromInstance(inst), db: Service{Name: "sqlite", Kind: "embedded"}}
}

func realStack(t *testing.T) stack {
	r := servicetest.Instance(t, "rabbitmq")
	p := servicetest.Instance(t, "postgres")
	return stack{brokerURL: r.URL, dbURL: p.URL, broker: fromInstance(r), db: fromInstance(p)}
}

// testLog sends slog records to t.Log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// runs numbers the test runs of this binary (runBus's marks, privateDB's names).
var runs atomic.Int64

// runBus performs a bus run on st (with the test binary as the consumer unless c.Consumer says
// otherwise) and checks that no consumer of this run is left behind, whatever happened: every
// consumer it starts carries the run's own mark in its environment.
func runBus(t *testing.T, st stack, c Config) (*result.Record, error) {
	t.Helper()
	c, mark := onStack(t, st, c)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rec, err := Run(ctx, c)
	t.Logf("run took %v: err=%v", time.Since(start).Round(time.Millisecond), err)
	if left := consumersAlive(mark); len(left) > 0 {
		t.Errorf("consumer processes left running: %v", left)
	}
	if rec != nil && testing.Verbose() {
		var sb strings.Builder
		_ = WriteSummary(&sb, rec)
		t.Log("\n" + sb.String())
	}
	return rec, err
}

// onStack completes c for a test run on st: its services, the test binary as the consumer unless
// c.Consumer says otherwise, bounds, and a log to t. It returns c with a new mark of the run (NAME=VALUE)
// in the consumer's environment, and the mark.
func onStack(t *testing.T, st stack, c Config) (Config, string) {
	mark := fmt.Sprintf("%s=%d-%d", envRunMark, os.Getpid(), runs.Add(1))
	c.SUTEnv = append(slices.Clip(c.SUTEnv), mark)
	c.BrokerURL, c.DatabaseURL, c.Broker, c.Database = st.brokerURL, st.dbURL, st.broker, st.db
	if c.Consumer.Inst == nil {
		useCommand(&c, os.Args[0], consumerArg)
	}
	if c.Timeout == 0 {
		c.Timeout = time.Minute
	}
	if c.Concurrency == 0 {
		c.Concurrency, c.Prefetch = 16, 32
	}
	if c.Log == nil {
		c.Log = slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return c, mark
}

// useCommand makes argv, run as CommandTarget runs --sut-cmd, the consumer of c, in c's mode
// (async when none).
func useCommand(c *Config, argv ...string) {
	mode := c.Mode
	if mode == "" {
		mode = ModeAsync
	}
	t := CommandTarget(argv, mode, filepath.Join(os.TempDir(), "iobench-bus-test"))
	UseImpl(c, t.Inst, t.Variant)
}

// consumersAlive lists the processes still running (not zombies) whose environment holds mark
// (NAME=VALUE).
func consumersAlive(mark string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		environ, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), mark) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, filepath.Base(d))
	}
	return out
}

// checkExact checks that the run accounted for every command and event exactly.
func checkExact(t *testing.T, rec *result.Record, err error, n int) {
	t.Helper()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	b := Section(rec)
	if !b.Verified || b.Rows != int64(n) || b.DuplicateRows != 0 || b.LostCommands != 0 || b.LostEvents != 0 ||
		b.EventsSeen != int64(n) || b.BadMessages != 0 || b.LeftInQueue != 0 {
		t.Fatalf("accounting: %+v", *b)
	}
	if b.CommandsHandled != int64(n)+b.DuplicateCommands {
		t.Fatalf("commands handled %d != %d + %d duplicates", b.CommandsHandled, n, b.DuplicateCommands)
	}
	if len(b.Phases) != 3 || b.Phases[0].Count != int64(n) || b.Phases[1].Count != int64(n) || b.Phases[2].Count != int64(n) {
		t.Fatalf("phases: %+v", b.Phases)
	}
	for _, p := range b.Phases {
		if p.Duration <= 0 || p.Mean <= 0 {
			t.Fatalf("phase %s has no rate: %+v", p.Name, p)
		}
	}
	if rec.Latency == nil || rec.Latency.Count != int64(n) {
		t.Fatalf("latency: %+v", rec.Latency)
	}
	if rec.Counts.Attempted != int64(n) || rec.Counts.Succeeded != int64(n) || rec.Counts.Lost != 0 {
		t.Fatalf("counts: %+v", rec.Counts)
	}
	roles := map[string]bool{}
	for _, p := range rec.Processes {
		roles[p.Role] = true
		if p.Role == "sut" && (p.PeakRSS == 0 || p.CPUUser+p.CPUSystem == 0) {
			t.Fatalf("the consumer's cost is missing: %+v", p)
		}
	}
	if !roles["generator"] || !roles["sut"] {
		t.Fatalf("processes: %+v", rec.Processes)
	}
}

// checkService fails unless rec has the cost of the service name, started by iobench: its CPU,
// its busiest threads and its memory (Pss).
func checkService(t *testing.T, rec *result.Record, name string) {
	t.Helper()
	for _, p := range rec.Processes {
		if p.Name == name && p.Role == "service" {
			if p.CPUUser+p.CPUSystem == 0 || len(p.HotThreads) == 0 || p.PeakRSS == 0 || p.PID == 0 {
				t.Fatalf("%s's cost is incomplete: %+v", name, p)
			}
			t.Logf("%s: %.0f%% of a core, busiest threads %v, peak %d MiB", name, p.CPUPercent, p.HotThreads, p.PeakRSS>>20)
			return
		}
	}
	t.Fatalf("no cost of %s in %+v", name, rec.Processes)
}

// TestBusEmbedded runs the built-in consumer in each mode and profile on NATS and SQLite, every
// command and event accounted for exactly. The runs are sized to exercise their path many times
// over, not to measure: a sync run handles hundreds of commands one at a time, an async one
// hundreds with its 16 handlers and 32 prefetched deliveries (25 prefetch windows or more).
func TestBusEmbedded(t *testing.T) {
	t.Parallel() // NATS and SQLite: the other parallel tests use RabbitMQ; TestBusVerifyFailure's NATS run is not parallel
	st := embedded(t)
	for _, c := range []Config{
		{N: 400, Mode: ModeSync, Profile: ProfileSeed},
		{N: 800, Mode: ModeAsync, Profile: ProfileSeed},
		{N: 300, Mode: ModeSync, Profile: ProfileDurable},
		{N: 800, Mode: ModeAsync, Profile: ProfileDurable},
	} {
		t.Run(c.Mode+"-"+c.Profile, func(t *testing.T) {
			rec, err := runBus(t, st, c)
			checkExact(t, rec, err, c.N)
			if Section(rec).Broker != "nats" || Section(rec).DB != "sqlite" || Section(rec).ConsumerStarts != 1 {
				t.Fatalf("bus: %+v", *Section(rec))
			}
		})
	}
}

// TestBusReal runs the built-in consumer in each mode and profile on RabbitMQ and PostgreSQL,
// sized as TestBusEmbedded's runs (TestBusChained has a longer async one).
func TestBusReal(t *testing.T) {
	st := realStack(t)
	for _, c := range []Config{
		{N: 300, Mode: ModeSync, Profile: ProfileSeed},
		{N: 1500, Mode: ModeAsync, Profile: ProfileSeed},
		{N: 300, Mode: ModeSync, Profile: ProfileDurable},
		{N: 800, Mode: ModeAsync, Profile: ProfileDurable},
	} {
		t.Run(c.Mode+"-"+c.Profile, func(t *testing.T) {
			rec, err := runBus(t, st, c)
			checkExact(t, rec, err, c.N)
			if Section(rec).Broker != "amqp" || Section(rec).DB != "postgres" {
				t.Fatalf("bus: %+v", *Section(rec))
			}
		})
	}
}

// TestBusChained runs an async consumer with few handlers and a deep prefetch, so that a command
// is mostly waiting when the one before commits: those begin in the commit's round trip, and
// every command and event is still accounted for exactly.
func TestBusChained(t *testing.T) {
	st := realStack(t)
	var log lockedBuffer
	c := Config{N: 2000, Mode: ModeAsync, Profile: ProfileSeed, Concurrency: 2, Prefetch: 64}
	c.Log = slog.New(slog.NewTextHandler(io.MultiWriter(testLog{t}, &log), &slog.HandlerOptions{Level: slog.LevelInfo}))
	rec, err := runBus(t, st, c)
	checkExact(t, rec, err, c.N)
	m := regexp.MustCompile(`bus consumer: stopped\W+commands=(\d+) chained=(\d+)`).FindStringSubmatch(log.String())
	if m == nil {
		t.Fatal("the consumer did not say how many commands it chained")
	}
	committed, _ := strconv.Atoi(m[1])
	chained, _ := strconv.Atoi(m[2])
	if committed != c.N || chained < c.N/4 {
		t.Fatalf("%d commands committed, %d chained: want %d, a quarter of them or more chained", committed, chained, c.N)
	}
	t.Logf("%d of %d commands began in the previous commit's round trip", chained, committed)
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBusKillSUT kills the consumer half-way: no command may be lost or stored twice, every event
// must be seen, and what was handled twice is counted. 2000 commands put the kill after 1000,
// with the 32 prefetched deliveries in flight that must come back redelivered.
func TestBusKillSUT(t *testing.T) {
	st := realStack(t)
	for _, profile := range []string{ProfileSeed, ProfileDurable} {
		t.Run(profile, func(t *testing.T) {
			const n = 2000
			rec, err := runBus(t, st, Config{N: n, Mode: ModeAsync, Profile: profile, Fault: Fault{Kind: FaultKillSUT, At: 0.5}})
			if profile == ProfileSeed && rec != nil && Section(rec).LostEvents > 0 {
				// Transient events without confirms may die with the consumer: a finding, which
				// must be reported as such; the commands must still be exact.
				b := Section(rec)
				if !errors.Is(err, ErrVerify) || !strings.Contains(err.Error(), "transient") ||
					b.LostCommands != 0 || b.DuplicateRows != 0 || b.Rows != n || b.EventsSeen+b.LostEvents != n {
					t.Fatalf("seed kill: err=%v bus=%+v", err, *b)
				}
				t.Logf("kill-sut seed: %d events lost with the killed consumer (at-most-once), reported: %v", b.LostEvents, err)
				return
			}
			checkExact(t, rec, err, n)
			b := Section(rec)
			if b.ConsumerStarts != 2 || b.FaultAtCommands < n/2 || b.Fault != "kill-sut@50%" {
				t.Fatalf("fault: %+v", *b)
			}
			if b.RedeliveredCommands == 0 {
				t.Fatalf("no command was redelivered after the kill: %+v", *b)
			}
			if f := fault.Section(rec); f == nil || len(f.Faults) != 1 || f.Faults[0].FirstSuccess == nil || f.Faults[0].RateBefore <= 0 {
				t.Fatalf("faults section %+v: want the kill with its recovery", f)
			}
			t.Logf("kill-sut %s: fault after %d commands; %d commands handled (%d twice), %d redelivered; %d events seen, %d duplicates",
				profile, b.FaultAtCommands, b.CommandsHandled, b.DuplicateCommands, b.RedeliveredCommands, b.EventsSeen, b.DuplicateEvents)
		})
	}
}

// restartableStack is a private RabbitMQ, which a test may restart without disturbing the other
// packages' tests on the shared one, and the test PostgreSQL.
func restartableStack(t *testing.T) stack {
	t.Helper()
	inst, err := service.Start(context.Background(), "rabbitmq", service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	pg := servicetest.Instance(t, "postgres")
	st := stack{brokerURL: inst.URL, broker: fromInstance(inst), dbURL: pg.URL, db: fromInstance(pg)}
	if st.broker.Restart == nil {
		t.Fatal("a private RabbitMQ started by iobench cannot Restart")
	}
	return st
}

// TestBusRestartBroker restarts a private RabbitMQ half-way through a durable run: after 500
// commands, with the consumer's 32 prefetched deliveries in flight.
func TestBusRestartBroker(t *testing.T) {
	t.Parallel() // its broker and its database are its own
	st := privateDB(t, restartableStack(t))
	const n = 1000
	rec, err := runBus(t, st, Config{N: n, Mode: ModeAsync, Profile: ProfileDurable, Fault: RestartBroker})
	checkExact(t, rec, err, n)
	checkService(t, rec, "rabbitmq")
	b := Section(rec)
	t.Logf("restart-broker: fault after %d commands, recovery %v; %d commands handled (%d twice); %d events seen, %d duplicates",
		b.FaultAtCommands, b.FaultRecovery.Std(), b.CommandsHandled, b.DuplicateCommands, b.EventsSeen, b.DuplicateEvents)
}

func TestBusBadInput(t *testing.T) {
	emb := embedded(t)
	rl := realStack(t)
	wrongPass := strings.Replace(rl.brokerURL, "guest:guest@", "guest:wrong@", 1)
	if wrongPass == rl.brokerURL {
		wrongPass = ""
	}
	for name, tc := range map[string]struct {
		st    stack
		edit  func(*Config)
		setup func(t *testing.T, st *stack)
		want  string
	}{
		"n zero": {st: emb, edit: func(c *Config) { c.N = 0 }, want: "-n 0"},
		"prefetch below concurrency": {st: emb, edit: func(c *Config) { c.Concurrency, c.Prefetch = 80, 10 },
			want: "prefetch 10 is below concurrency 80"},
		"broker unreachable": {st: emb, edit: func(c *Config) { c.BrokerURL = "amqp://guest:guest@127.0.0.1:1/" },
			want: "connection refused"},
		"database unreachable": {st: emb, edit: func(c *Config) { c.DatabaseURL = "postgres://u:pw@127.0.0.1:1/db" },
			want: "connection refused"},
		"wrong broker password": {st: rl, edit: func(c *Config) { c.BrokerURL = wrongPass }, want: "access refused"},
		"consumer exits at once": {st: emb, edit: func(c *Config) { useCommand(c, "/bin/sh", "-c", "echo no such consumer >&2; exit 3") },
			want: "no such consumer"},
		"foreign sqlite table": {st: emb, setup: func(t *testing.T, st *stack) {
			st.dbURL = "sqlite://" + filepath.Join(t.TempDir(), "foreign.db")
			foreignTable(t, st.dbURL, "CREATE TABLE customers (id integer PRIMARY KEY, name text)")
		}, want: "another schema"},
		"foreign postgres table": {st: rl, setup: func(t *testing.T, st *stack) {
			foreignTable(t, st.dbURL, "CREATE SCHEMA IF NOT EXISTS iobench_bus_foreign")
			foreignTable(t, st.dbURL, "CREATE TABLE IF NOT EXISTS iobench_bus_foreign.customers (id uuid PRIMARY KEY, name text NOT NULL, email varchar)")
			st.dbURL = withParam(st.dbURL, "search_path", "iobench_bus_foreign")
		}, want: "another schema"},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "wrong broker password" && wrongPass == "" {
				t.Skip("the broker URL has no guest:guest password to spoil")
			}
			st := tc.st
			if tc.setup != nil {
				tc.setup(t, &st)
			}
			c := Config{N: 50, Mode: ModeAsync, Profile: ProfileSeed}
			if tc.edit != nil {
				c.BrokerURL, c.DatabaseURL = st.brokerURL, st.dbURL
				tc.edit(&c)
				st.brokerURL, st.dbURL = c.BrokerURL, c.DatabaseURL
			}
			rec, err := runBus(t, st, c)
			if err == nil || errors.Is(err, ErrVerify) || errors.Is(err, ErrSUT) {
				t.Fatalf("err = %v, want a bad-input error", err)
			}
			if rec != nil {
				t.Fatalf("a record for bad input: %+v", rec)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "wrong@") {
				t.Fatalf("error %q: want one line containing %q, no password", msg, tc.want)
			}
		})
	}
}

// TestBusVerifyFailure hides every event report: on NATS the run ends at its timeout, on RabbitMQ
// after the idle period (nothing handled, nothing queued); either way verification fails and the
// record is returned.
func TestBusVerifyFailure(t *testing.T) {
	for name, tc := range map[string]struct {
		st      func(*testing.T) stack
		timeout time.Duration
		want    string
	}{
		"nats timeout": {st: embedded, timeout: 3 * time.Second, want: "timed out after 3s"},
		"amqp idle":    {st: realStack, timeout: time.Minute, want: "300 events never seen"},
	} {
		t.Run(name, func(t *testing.T) {
			const n = 300
			rec, err := runBus(t, tc.st(t), Config{N: n, Mode: ModeAsync, Profile: ProfileSeed, Timeout: tc.timeout,
				SUTEnv: []string{envDropEvents + "=1"}})
			if !errors.Is(err, ErrVerify) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a verification failure with %q", err, tc.want)
			}
			if rec == nil || Section(rec).Verified || Section(rec).LostEvents != n || Section(rec).LostCommands != 0 || Section(rec).Rows != n {
				t.Fatalf("record: %+v", rec)
			}
		})
	}
}

// foreignTable runs one statement on the database at url.
func foreignTable(t *testing.T, url, stmt string) {
	t.Helper()
	ctx := context.Background()
	db, err := openSQL(ctx, url, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, stmt); err != nil {
		t.Fatal(err)
	}
}

// withParam adds a query parameter to a URL.
func withParam(url, k, v string) string {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + k + "=" + v
}
