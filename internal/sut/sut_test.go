package sut

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// Roles the test binary plays when re-executed (helperRole names which).
const (
	helperRole  = "SUT_TEST_ROLE"
	helperState = "SUT_TEST_STATE"
	roleListen  = "listen"  // a server that listens on IOBENCH_LISTEN after a slow start
	roleIobench = "iobench" // an iobench that starts a pre-forking SUT and waits to be killed
	python      = "python3"
)

// prefork is a pre-forking server: a leader that dies on SIGTERM and three processes that ignore
// it: a worker in the leader's group, one that left it with setsid, and that one's child. It
// prints their pids, then "ready".
const prefork = `
import os, signal, time
r, w = os.pipe()
def worker(leave):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if leave:
        os.setsid()
        if os.fork() == 0:
            os.write(w, b"%d\n" % os.getpid())
            time.sleep(600)
            os._exit(0)
    os.write(w, b"%d\n" % os.getpid())
    time.sleep(600)
    os._exit(0)
for leave in (False, True):
    if os.fork() == 0:
        worker(leave)
got = b""
while got.count(b"\n") < 3:
    got += os.read(r, 100)
print("workers", got.decode().replace("\n", " "), flush=True)
print("ready", flush=True)
time.sleep(600)
`

func TestMain(m *testing.M) {
	switch os.Getenv(helperRole) {
	case roleListen:
		time.Sleep(300 * time.Millisecond) // a slow start, which readiness must wait out
		l, err := net.Listen("tcp", os.Getenv("IOBENCH_LISTEN"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}
	case roleIobench:
		os.Exit(fakeIobench())
	}
	os.Exit(m.Run())
}

// fakeIobench starts the pre-forking server as iobench would, prints its pids and waits to be
// killed.
func fakeIobench() int {
	p, err := Start(context.Background(), Options{
		Name: "prefork", Argv: []string{python, "-c", prefork}, StateDir: os.Getenv(helperState),
		Ready:  Ready{Log: regexp.MustCompile("^ready$")},
		OnLine: func(l string) { fmt.Println(l) },
	})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("leader", p.PID())
	select {}
}

// lines collects a process's lines of output.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) add(s string) { l.mu.Lock(); l.got = append(l.got, s); l.mu.Unlock() }

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.got, "\n")
}

// start starts opts with a private state directory, stopped at the end of the test.
func start(t *testing.T, opts Options) *Process {
	t.Helper()
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	p, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// TestReadyLogAndStdin waits for a log line, sends the start signal on stdin and finds the
// answer in OnLine, the tail and the log file.
func TestReadyLogAndStdin(t *testing.T) {
	var out lines
	logDir := t.TempDir()
	p := start(t, Options{
		Argv:   []string{"sh", "-c", `echo starting; echo ready; read line; echo "got $line" >&2`},
		Ready:  Ready{Log: regexp.MustCompile("^ready$")},
		OnLine: out.add, LogDir: logDir,
	})
	if err := p.Send("go"); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "starting\nready\ngot go" {
		t.Fatalf("lines %q", got)
	}
	if tail := p.Tail(); tail != "starting | ready | got go" {
		t.Fatalf("tail %q", tail)
	}
	_ = p.Stop()
	if log, err := os.ReadFile(p.LogPath()); err != nil || string(log) != "starting\nready\ngot go\n" || !strings.HasPrefix(p.LogPath(), logDir) {
		t.Fatalf("log %s: %q %v", p.LogPath(), log, err)
	}
}

// TestReadyTCP starts a server that listens only after a while: Start must return once it does.
func TestReadyTCP(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, Options{
		Argv: []string{os.Args[0]}, Env: Environ(helperRole+"="+roleListen, "IOBENCH_LISTEN="+addr),
		Ready: Ready{TCP: addr},
	})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("Start returned before %s accepted connections: %v", addr, err)
	}
	c.Close()
	_ = p.Stop()
	select {
	case <-p.Done():
	default:
		t.Fatal("still running after Stop")
	}
}

// TestReadyStream hands stdout to a reader that says when the process is ready; stderr still
// reaches the tail, stdout does not.
func TestReadyStream(t *testing.T) {
	var got lines
	stream := func(r io.Reader, ready func()) error {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			got.add(sc.Text())
			if sc.Text() == "ready" {
				ready()
			}
		}
		return errors.New("the stream broke")
	}
	p := start(t, Options{
		Argv:   []string{"sh", "-c", `echo noise; echo warming up >&2; echo ready; read l; echo "c 1 $l"`},
		Ready:  Ready{Stream: true},
		Stream: stream,
	})
	if err := p.Send("7"); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := got.String(); s != "noise\nready\nc 1 7" {
		t.Fatalf("stream read %q", s)
	}
	// stdout and stderr are read concurrently: their lines may come in either order.
	tail := strings.Split(p.Tail(), " | ")
	slices.Sort(tail)
	if !slices.Equal(tail, []string{"reading the output: the stream broke", "warming up"}) {
		t.Fatalf("tail %q: want stderr and the stream's error, not stdout", p.Tail())
	}
}

func TestStartFailures(t *testing.T) {
	t.Run("exits before ready", func(t *testing.T) {
		_, err := Start(t.Context(), Options{
			Name: "app", Argv: []string{"sh", "-c", "echo boom: no config >&2; exit 3"},
			Ready: Ready{Log: regexp.MustCompile("^ready$")}, StateDir: t.TempDir(),
		})
		if !errors.Is(err, ErrExited) || err.Error() != "app exited before it was ready (exit status 3): boom: no config" {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("never ready", func(t *testing.T) {
		var out lines
		state := t.TempDir()
		begin := time.Now()
		_, err := Start(t.Context(), Options{
			Name: "app", Argv: []string{"sh", "-c", "echo pid $$; exec sleep 60"}, OnLine: out.add,
			Ready: Ready{Log: regexp.MustCompile("^ready$"), Timeout: 300 * time.Millisecond}, StateDir: state,
		})
		if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "app not ready within 300ms (waiting for a line matching ^ready$): pid ") {
			t.Fatalf("error %v", err)
		}
		if d := time.Since(begin); d > 10*time.Second {
			t.Fatalf("Start took %v", d)
		}
		var pid int
		fmt.Sscanf(out.String(), "pid %d", &pid)
		if pid == 0 || procstat.Alive(pid, 0) {
			t.Fatalf("process %d still runs after a failed Start", pid)
		}
		assertNoRecords(t, state)
	})
	t.Run("no command", func(t *testing.T) {
		if _, err := Start(t.Context(), Options{}); err == nil || !strings.Contains(err.Error(), "give Options.Argv") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		_, err := Start(t.Context(), Options{Argv: []string{"/no/such/sut"}, StateDir: t.TempDir()})
		if !errors.Is(err, ErrStart) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "sut: cannot start /no/such/sut") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestStopPreforkedTree stops a pre-forking server whose workers ignore SIGTERM, one of them in a
// session of its own with a child: nothing may be left, and without waiting out the grace.
func TestStopPreforkedTree(t *testing.T) {
	var out lines
	state := t.TempDir()
	p := start(t, Options{
		Name: "prefork", Argv: []string{python, "-c", prefork}, StateDir: state, OnLine: out.add,
		Ready: Ready{Log: regexp.MustCompile("^ready$")}, StopGrace: 20 * time.Second,
	})
	workers := pids(t, out.String(), "workers")
	killOnCleanup(t, workers)
	if len(workers) != 3 {
		t.Fatalf("workers %v", workers)
	}
	begin := time.Now()
	_ = p.Stop()
	if d := time.Since(begin); d > 10*time.Second {
		t.Fatalf("Stop took %v; the leader died at once, so the rest is killed without the grace", d)
	}
	for _, pid := range append(workers, p.PID()) {
		if procstat.Alive(pid, 0) {
			t.Errorf("process %d survived Stop", pid)
		}
	}
	assertNoRecords(t, state)
}

// TestUsageOfTree checks the tree's cost: a child that burns CPU and one that holds 64 MiB,
// neither of them the leader.
func TestUsageOfTree(t *testing.T) {
	p := start(t, Options{
		Argv: []string{"sh", "-c", `python3 -c 'import time; b = b"x" * (64 << 20); time.sleep(600)' &
(while :; do :; done) &
echo ready; wait`},
		Ready: Ready{Log: regexp.MustCompile("^ready$")},
	})
	deadline := time.Now().Add(20 * time.Second)
	var u procstat.Usage
	for u = p.Usage(); u.CPU() < 300*time.Millisecond || u.PeakRSS < 64<<20; u = p.Usage() {
		if time.Now().After(deadline) {
			t.Fatalf("usage %+v after 20 s: want the busy child's CPU and the other's 64 MiB", u)
		}
		time.Sleep(50 * time.Millisecond) // polling a measurement, not synchronizing
	}
	_ = p.Stop()
	if after := p.Usage(); after.CPU() < u.CPU() || after.PeakRSS < u.PeakRSS {
		t.Fatalf("usage after Stop %+v fell below %+v", after, u)
	}
}

// pids reads the pids of the line of out that starts with word.
func pids(t *testing.T, out, word string) []int {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != word {
			continue
		}
		var ids []int
		for _, s := range f[1:] {
			var n int
			if _, err := fmt.Sscan(s, &n); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			ids = append(ids, n)
		}
		return ids
	}
	t.Fatalf("no line %q in %q", word, out)
	return nil
}

// killOnCleanup kills the processes at the end of the test, so that a failed test leaves
// nothing running.
func killOnCleanup(t *testing.T, pids []int) {
	var ids []procID
	for _, pid := range pids {
		if s, err := procstat.ReadStat(pid); err == nil {
			ids = append(ids, procID{pid, s.Start})
		}
	}
	t.Cleanup(func() {
		for _, id := range ids {
			if procstat.Alive(id.PID, id.Start) {
				_ = syscall.Kill(id.PID, syscall.SIGKILL)
			}
		}
	})
}

// assertNoRecords checks that every process group recorded in state was removed.
func assertNoRecords(t *testing.T, state string) {
	t.Helper()
	entries, _ := os.ReadDir(state + "/" + recordsDir)
	for _, e := range entries {
		t.Errorf("record %s left after the process group was stopped", e.Name())
	}
}
