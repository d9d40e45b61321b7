package service

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/procstat"
)

// testOptions returns Options with a fresh state directory that service users can enter
// (t.TempDir makes 0700 directories).
func testOptions(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Options{StateDir: dir, Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestStartStop starts each local server, checks that it answers, listens on loopback only, and
// that Stop leaves no process and no listener behind.
func TestStartStop(t *testing.T) {
	for _, name := range []string{"rabbitmq", "postgres", "redis", "memcached"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := Installed(name); err != nil {
				t.Fatal(err) // the machine is expected to have them: scripts/install-services.sh
			}
			opts := testOptions(t)
			ctx := context.Background()
			inst, err := Start(ctx, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			stopped := false
			defer func() {
				if !stopped {
					_ = inst.Stop(ctx)
				}
			}()
			t.Logf("%s %s %s started in %v", name, inst.Version, inst.Redacted(), inst.Startup.Round(time.Millisecond))
			if inst.Kind != KindLocal || !inst.Owned || inst.Version == "" || inst.Dir == "" {
				t.Errorf("instance = %+v; want local, owned, with version and dir", inst)
			}
			port := urlPort(t, inst.URL)
			if want := filepath.Join(opts.StateDir, name+"-"+strconv.Itoa(port)); inst.Dir != want {
				t.Errorf("Dir = %s, want %s", inst.Dir, want)
			}
			if _, err := specs[name].probe(ctx, inst.URL); err != nil {
				t.Errorf("probe after Start: %v", err)
			}
			pids := inst.PIDs()
			if len(pids) == 0 {
				t.Fatal("no PIDs")
			}
			addrs := listenersOf(pids)
			found := false
			for _, a := range addrs {
				if !a.IP.Equal(net.IPv4(127, 0, 0, 1)) && !a.IP.Equal(net.IPv6loopback) {
					t.Errorf("%s listens on %s, beyond loopback", name, a)
				}
				found = found || a.Port == port
			}
			if !found {
				t.Errorf("main port %d not among listeners %v", port, addrs)
			}
			t.Logf("listeners: %v", addrs)
			sessions := append([]*proc(nil), inst.procs...)

			begin := time.Now()
			if err := inst.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			stopped = true
			t.Logf("%s stopped in %v", name, time.Since(begin).Round(time.Millisecond))
			assertGone(t, pids, sessions, addrs)
			if _, err := os.Stat(inst.Dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("instance dir %s still there after Stop (%v)", inst.Dir, err)
			}
			if err := inst.Stop(ctx); err != nil {
				t.Errorf("second Stop: %v", err)
			}
		})
	}
}

// assertGone checks that no process of pids or of the sessions is alive and that nothing
// listens on addrs any more.
func assertGone(t *testing.T, pids []int, sessions []*proc, addrs []listenAddr) {
	t.Helper()
	for _, pid := range pids {
		if st, err := procstat.ReadStat(pid); err == nil && !st.Zombie() {
			t.Errorf("process %d still running (state %c)", pid, st.State)
		}
	}
	for _, p := range sessions {
		if m := sessionMembers(p.PID); len(m) > 0 {
			t.Errorf("session %d (%s) still has processes %v", p.PID, p.Cmd, m)
		}
	}
	socks := listening()
	for _, a := range addrs {
		for _, s := range socks {
			if s.Port == a.Port && s.IP.Equal(a.IP) {
				t.Errorf("something still listens on %s", a)
			}
		}
	}
}

func urlPort(t *testing.T, u string) int {
	t.Helper()
	i := strings.LastIndex(u, ":")
	s := u[i+1:]
	if j := strings.IndexAny(s, "/?"); j >= 0 {
		s = s[:j]
	}
	p, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("no port in %s", u)
	}
	return p
}

func TestStartEmbeddedNATS(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	ctx := context.Background()
	inst, err := Start(ctx, "nats", opts)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Kind != KindEmbedded || !inst.Owned || inst.PIDs() != nil || inst.Version == "" {
		t.Errorf("instance = %+v; want embedded, owned, no pids", inst)
	}
	if !strings.HasPrefix(inst.URL, "nats://127.0.0.1:") {
		t.Errorf("URL = %s", inst.URL)
	}
	if v, err := probeNATS(ctx, inst.URL); err != nil || v != inst.Version {
		t.Errorf("probe = %q, %v", v, err)
	}
	port := urlPort(t, inst.URL)
	if err := inst.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if dialOK(port) {
		t.Errorf("port %d still accepts after Stop", port)
	}
	if _, err := os.Stat(inst.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("store dir still there: %v", err)
	}
}

func TestPortConflict(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for _, name := range []string{"redis", "nats"} {
		opts := testOptions(t)
		opts.Port = port
		inst, err := Start(context.Background(), name, opts)
		if err == nil {
			_ = inst.Stop(context.Background())
			t.Fatalf("%s: Start on a taken port succeeded", name)
		}
		if !errors.Is(err, ErrPortInUse) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v; want one line wrapping ErrPortInUse", name, err)
		}
		if want := "by pid " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v; want it to name the holder (%s)", name, err, want)
		}
	}
}

// TestRestart restarts PostgreSQL and Redis in place: same URL, new processes, PostgreSQL's data
// kept; and refuses to restart what it did not start.
func TestRestart(t *testing.T) {
	for _, name := range []string{"postgres", "redis", "rabbitmq"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			inst, err := Start(ctx, name, testOptions(t))
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Stop(ctx)
			switch name {
			case "postgres":
				pgExec(t, inst.URL, "CREATE TABLE kept (id int); INSERT INTO kept VALUES (42)")
			case "rabbitmq":
				amqpQueue(t, inst.URL, true)
			}
			before := inst.PIDs()
			begin := time.Now()
			if err := inst.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s restarted in %v", name, time.Since(begin).Round(time.Millisecond))
			after := inst.PIDs()
			if len(after) == 0 || after[0] == before[0] {
				t.Errorf("pids before %v, after %v; want a new process", before, after)
			}
			assertGone(t, before, nil, nil)
			if _, err := specs[name].probe(ctx, inst.URL); err != nil {
				t.Errorf("probe after Restart: %v", err)
			}
			switch name {
			case "postgres":
				pgExec(t, inst.URL, "SELECT 1/(count(*)::int) FROM kept WHERE id = 42")
			case "rabbitmq":
				if n := amqpQueue(t, inst.URL, false); n != 1 {
					t.Errorf("durable queue holds %d persistent messages after Restart, want 1", n)
				}
			}
			if err := inst.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			assertGone(t, after, nil, nil)
			if err := inst.Restart(ctx); !errors.Is(err, ErrNotRestartable) {
				t.Errorf("Restart after Stop = %v; want ErrNotRestartable", err)
			}
		})
	}
}

func pgExec(t *testing.T, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// amqpQueue declares a durable queue and publishes one persistent message to it (publish), or
// returns how many messages it holds (passive declare).
func amqpQueue(t *testing.T, url string, publish bool) int {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if !publish {
		q, err := ch.QueueDeclarePassive("kept", true, false, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return q.Messages
	}
	if _, err := ch.QueueDeclare("kept", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	dc, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), "", "kept", false, false,
		amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("x")})
	if err != nil || !dc.Wait() {
		t.Fatalf("publish not confirmed: %v", err)
	}
	return 1
}
