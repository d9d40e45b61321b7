package impl

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/env"
)

// pyImpl writes a dependency-free Python impl running script.
func pyImpl(t *testing.T, script, ready string, extra string) *Installation {
	t.Helper()
	manifest := "name: python-t\nlanguage: python\ndiffers: []\nworkloads: {hello: {routes: [/]}}\n" +
		"variants: [{name: one, mode: sync}, {name: two, mode: async, env: {IOBENCH_AMQP_URL: amqp://variant/, V: two}}]\n" +
		"start: {command: [python3, app.py]}\n" + ready + extra
	dir := writeImpl(t, "python/t", manifest)
	if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := Install(t.Context(), m, InstallOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestStartLogLineStdinAndTreeCPU starts an impl that becomes ready by printing a line, waits
// for iobench's line on stdin, burns CPU in a child process that exits before it, and checks
// the child's CPU is counted, the environment is the run's, and lines reach OnLine and the log.
func TestStartLogLineStdinAndTreeCPU(t *testing.T) {
	t.Setenv("IOBENCH_SECRET_LEAK", "1")
	inst := pyImpl(t, `
import os, sys, time, multiprocessing
def burn():
    end = time.process_time() + 0.4
    while time.process_time() < end:
        pass
print("env", os.environ.get("IOBENCH_AMQP_URL"), os.environ.get("IOBENCH_SECRET_LEAK"), os.environ.get("PYTHONUNBUFFERED"),
      os.environ.get("IOBENCH_VARIANT"), os.environ.get("IOBENCH_MODE"), os.environ.get("V"))
print("ready")
line = sys.stdin.readline().strip()
p = multiprocessing.Process(target=burn); p.start(); p.join()
print("got", line)
`, "ready: {log: '^ready$'}\n", "")
	var mu sync.Mutex
	var got []string
	if _, err := inst.Start(t.Context(), StartOptions{Variant: "three"}); err == nil || !strings.Contains(err.Error(), `no variant "three"; choose from one, two`) {
		t.Fatalf("unknown variant: %v", err)
	}
	p, err := inst.Start(t.Context(), StartOptions{
		Variant: "two",
		Env:     map[string]string{env.AMQPURL: "amqp://x/"},
		OnLine:  func(l string) { mu.Lock(); got = append(got, l); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if err := p.Send("go"); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	lines := strings.Join(got, "\n")
	mu.Unlock()
	if !strings.Contains(lines, "env amqp://x/ None 1 two async two") || !strings.Contains(lines, "got go") {
		t.Fatalf("lines:\n%s", lines)
	}
	u := p.Usage()
	if u.CPU() < 300*time.Millisecond || u.PeakRSS == 0 {
		t.Fatalf("usage %+v: want the child's 0.4 s of CPU and a peak RSS", u)
	}
	p.Stop()
	log, err := os.ReadFile(p.LogPath())
	if err != nil || !strings.Contains(string(log), "got go") {
		t.Fatalf("log %s: %q %v", p.LogPath(), log, err)
	}
}

// TestStartHelper runs a command of the impl's beside it: resolved and run in the impl's folder
// with the variant's and the run's environment, ready on its line, its output to OnLine and its
// log, stopped with stop.signal.
func TestStartHelper(t *testing.T) {
	inst := pyImpl(t, "", "ready: {log: '^ready$'}\n", "stop: {signal: INT, timeout: 2s}\n")
	helper := "import os, time\nprint('env', os.environ.get('IOBENCH_VARIANT'), os.environ.get('V'), os.environ.get('IOBENCH_ZMQ_ENDPOINT'), flush=True)\n" +
		"try:\n    print('ready', flush=True)\n    time.sleep(30)\nexcept KeyboardInterrupt:\n    print('total 3', flush=True)\n"
	if err := os.WriteFile(filepath.Join(inst.Manifest.Dir, "helper.py"), []byte(helper), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.StartHelper(t.Context(), "h", []string{"python3", "helper.py"}, nil, StartOptions{Variant: "nine"}); err == nil {
		t.Fatal("an unknown variant started")
	}
	var mu sync.Mutex
	var got []string
	p, err := inst.StartHelper(t.Context(), "python3 helper.py", []string{"python3", "helper.py"}, regexp.MustCompile(`^ready$`), StartOptions{
		Variant: "two", Env: map[string]string{env.ZMQEndpoint: "ipc:///x"},
		OnLine: func(l string) { mu.Lock(); got = append(got, l); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()
	mu.Lock()
	lines := strings.Join(got, "\n")
	mu.Unlock()
	if lines != "env two two ipc:///x\nready\ntotal 3" {
		t.Fatalf("lines:\n%s", lines)
	}
	if log, err := os.ReadFile(p.LogPath()); err != nil || !strings.Contains(string(log), "total 3") {
		t.Fatalf("log %s: %q %v", p.LogPath(), log, err)
	}
}

// startListening starts inst with IOBENCH_LISTEN on a free port of 127.0.0.1.
func startListening(t *testing.T, inst *Installation) (*Process, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p, err := inst.Start(t.Context(), StartOptions{Env: map[string]string{env.Listen: addr}})
	if err != nil {
		t.Fatal(err)
	}
	return p, addr
}

func TestStartTCPReady(t *testing.T) {
	inst := pyImpl(t, `
import os, socket, time
host, port = os.environ["IOBENCH_LISTEN"].rsplit(":", 1)
time.sleep(0.2)
s = socket.socket(); s.bind((host, int(port))); s.listen()
while True:
    c, _ = s.accept(); c.close()
`, "ready: {tcp: listen}\n", "")
	p, addr := startListening(t, inst)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	p.Stop()
	select {
	case <-p.Done():
	default:
		t.Fatal("still running after Stop")
	}
}

// TestStartReportStream starts an impl whose stdout is a report stream (a bus consumer declared
// as an impl): readiness comes from the stream's reader, not from the manifest's ready line.
func TestStartReportStream(t *testing.T) {
	inst := pyImpl(t, "import sys\nprint('ready')\nprint('c 0 1 0')\nprint('not ready', file=sys.stderr)\nsys.stdin.readline()\n",
		"ready: {log: '^never$', timeout: 10s}\n", "")
	var mu sync.Mutex
	var reports []string
	stream := func(r io.Reader, ready func()) error {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			mu.Lock()
			reports = append(reports, sc.Text())
			mu.Unlock()
			if sc.Text() == "ready" {
				ready()
			}
		}
		return sc.Err()
	}
	state := t.TempDir()
	p, err := inst.Start(t.Context(), StartOptions{Stream: stream, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if records, _ := os.ReadDir(filepath.Join(state, "sut")); len(records) != 1 {
		t.Fatalf("records %v: want the impl's process group recorded in StateDir", records)
	}
	p.Send("bye")
	if err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(reports, "|") != "ready|c 0 1 0" || p.Tail() != "not ready" {
		t.Fatalf("reports %q, tail %q", reports, p.Tail())
	}
	if records, _ := os.ReadDir(filepath.Join(state, "sut")); len(records) != 0 {
		t.Fatalf("records %v left after Stop", records)
	}
}

func TestStartFailures(t *testing.T) {
	t.Run("exits before ready", func(t *testing.T) {
		inst := pyImpl(t, "import sys\nprint('boom: no config')\nsys.exit(3)\n", "ready: {log: '^ready$'}\n", "")
		_, err := inst.Start(t.Context(), StartOptions{})
		if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "boom: no config") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("never ready", func(t *testing.T) {
		inst := pyImpl(t, "import time\nprint('starting')\ntime.sleep(60)\n", "ready: {log: '^ready$', timeout: 300ms}\n", "")
		begin := time.Now()
		_, err := inst.Start(t.Context(), StartOptions{})
		if err == nil || !strings.Contains(err.Error(), "not ready within 300ms") || time.Since(begin) > 10*time.Second {
			t.Fatalf("error %v after %v", err, time.Since(begin))
		}
	})
	t.Run("ignores SIGTERM", func(t *testing.T) {
		inst := pyImpl(t, "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready')\ntime.sleep(60)\n",
			"ready: {log: '^ready$'}\n", "stop: {signal: TERM, timeout: 300ms}\n")
		p, err := inst.Start(t.Context(), StartOptions{})
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		p.Stop()
		if d := time.Since(begin); d < 250*time.Millisecond || d > 5*time.Second {
			t.Fatalf("Stop took %v; want SIGKILL after the 300ms stop timeout", d)
		}
	})
	t.Run("interrupted wait", func(t *testing.T) {
		inst := pyImpl(t, "import time\nprint('ready')\ntime.sleep(60)\n", "ready: {log: '^ready$'}\n", "")
		p, err := inst.Start(t.Context(), StartOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		if err := p.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait: %v", err)
		}
	})
}

// TestInstallPython installs the repo's python-pika-publisher into the default state directory (cached
// there, so reruns take no time), checks its prerequisites and that a second Install reuses it.
func TestInstallPython(t *testing.T) {
	m, err := Find("../../impls", "python-pika-publisher")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := Install(t.Context(), m, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	again, err := Install(t.Context(), m, InstallOptions{})
	if err != nil || !again.Reused || again.Python != inst.Python {
		t.Fatalf("second install: %+v %v; want the cached venv", again, err)
	}
	if argv := inst.Command(); argv[0] != inst.Python || argv[1] != "publisher.py" {
		t.Fatalf("command %v", argv)
	}
}

func TestInstallFailures(t *testing.T) {
	base := "name: python-broken\nlanguage: python\ndiffers: []\nvariants: [{name: a, mode: sync}]\nworkloads: {hello: {routes: [/]}}\n" +
		"start: {command: [python, app.py]}\nready: {tcp: listen}\ninstall: {venv: requirements.txt}\n"
	t.Run("bad requirements", func(t *testing.T) {
		dir := writeImpl(t, "python/broken", base)
		os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte("pika=====1!!\n"), 0o644)
		m, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Install(t.Context(), m, InstallOptions{StateDir: t.TempDir()})
		if !errors.Is(err, ErrInstall) || !strings.Contains(err.Error(), "pip install -r requirements.txt failed") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("no python", func(t *testing.T) {
		dir := writeImpl(t, "python/broken", base, "requirements.txt")
		m, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", t.TempDir())
		_, err = Install(t.Context(), m, InstallOptions{StateDir: t.TempDir()})
		if !errors.Is(err, ErrMissing) || errors.Is(err, ErrInstall) || err.Error() != "impl python-broken: missing command python3 ("+pythonHint+")" {
			t.Fatalf("error %v; want a missing runtime (ErrMissing), which a suite skips", err)
		}
	})
	t.Run("no npm", func(t *testing.T) {
		dir := writeImpl(t, "node/broken", "name: node-broken\nlanguage: node\ndiffers: []\nvariants: [{name: a, mode: async}]\nworkloads: {hello: {routes: [/]}}\n"+
			"start: {command: [node, server.js]}\nready: {tcp: listen}\ninstall: {npm: package-lock.json}\n", "package-lock.json", "package.json")
		m, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", t.TempDir())
		_, err = Install(t.Context(), m, InstallOptions{StateDir: t.TempDir()})
		if !errors.Is(err, ErrMissing) || err.Error() != "impl node-broken: missing command npm ("+nodeHint+")" {
			t.Fatalf("error %v; want a missing runtime (ErrMissing), which a suite skips", err)
		}
	})
	t.Run("missing prerequisites", func(t *testing.T) {
		dir := writeImpl(t, "python/needy", "name: python-needy\nlanguage: python\ndiffers: []\nvariants: [{name: a, mode: sync}]\nworkloads: {hello: {routes: [/]}}\n"+
			"start: {command: [python3, app.py]}\nready: {tcp: listen}\n"+
			"requires: {commands: [{name: no-such-command-iobench, hint: apt-get install it}]}\n")
		m, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := Install(t.Context(), m, InstallOptions{StateDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		err = inst.Check(t.Context())
		if !errors.Is(err, ErrMissing) || err.Error() != "impl python-needy: missing command no-such-command-iobench (apt-get install it)" {
			t.Fatalf("error %v", err)
		}
	})
}

// TestAsyncioHello starts the repo's python-asyncio-hello: two pipelined requests get two
// answers in order, and the server stops on SIGTERM (hello's tests run verify's route checks).
func TestAsyncioHello(t *testing.T) {
	m, err := Find("../../impls", "python-asyncio-hello")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := Install(t.Context(), m, InstallOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	p, addr := startListening(t, inst)
	defer p.Stop()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
	got, _ := io.ReadAll(c)
	want := "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nHello world!" +
		"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 32\r\n\r\nnot found: only GET / is served\n"
	if string(got) != want {
		t.Fatalf("pipelined answers\n%q\nwant\n%q", got, want)
	}
	p.Stop()
	if u := p.Usage(); u.CPU() <= 0 || u.PeakRSS == 0 {
		t.Fatalf("usage %+v", u)
	}
}
