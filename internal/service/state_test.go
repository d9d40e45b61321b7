package service

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// TestMain doubles as the helper processes of these tests (a process that runs `services up`
// and exits, one that starts servers and gets killed, the NATS server process of Up), and clears
// the environment variables that would make Ensure use external servers (make test exports them).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "iobench-nats-server" {
		os.Exit(natsServerMain(os.Args[2:]))
	}
	switch os.Getenv("IOBENCH_TEST_HELPER") {
	case "up":
		os.Exit(helperUp())
	case "hang":
		os.Exit(helperHang())
	}
	for _, n := range Names() {
		os.Unsetenv(EnvName(n))
	}
	os.Exit(m.Run())
}

func natsServerMain(args []string) int {
	var port int
	var dir string
	for i := 0; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--port":
			port, _ = strconv.Atoi(args[i+1])
		case "--store-dir":
			dir = args[i+1]
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := ServeNATS(ctx, port, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func helperOptions() Options {
	exe, _ := os.Executable()
	return Options{StateDir: os.Getenv("IOBENCH_TEST_STATE"), NATSCommand: []string{exe, "iobench-nats-server"}}
}

// helperUp runs Up for IOBENCH_TEST_NAME, prints the URL and exits.
func helperUp() int {
	inst, started, err := Up(context.Background(), os.Getenv("IOBENCH_TEST_NAME"), helperOptions())
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("URL", inst.URL, started)
	return 0
}

// helperHang starts IOBENCH_TEST_NAME as a run would, prints its pids and waits to be killed.
func helperHang() int {
	inst, err := Start(context.Background(), os.Getenv("IOBENCH_TEST_NAME"), helperOptions())
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("PIDS", strings.Trim(fmt.Sprint(inst.PIDs()), "[]"))
	select {}
}

// runHelper runs this test binary as a helper and returns its first output line's fields.
func runHelper(t *testing.T, mode, name, stateDir string) (*exec.Cmd, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "IOBENCH_TEST_HELPER="+mode, "IOBENCH_TEST_NAME="+name, "IOBENCH_TEST_STATE="+stateDir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if len(f) == 0 || f[0] == "ERR" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s %s: %q", mode, name, line)
	}
	return cmd, f
}

// TestUpDown checks that an instance from Up outlives the process that started it, that Ensure
// finds it through the state file, that another process can restart it in place (the bus's
// restart-broker fault), and that Down, from another process, leaves nothing behind.
func TestUpDown(t *testing.T) {
	for _, name := range []string{"redis", "nats", "rabbitmq", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			opts := testOptions(t)
			cmd, f := runHelper(t, "up", name, opts.StateDir)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("helper: %v", err)
			}
			url := f[1]
			if f[2] != "true" {
				t.Errorf("first Up: started = %s", f[2])
			}
			t.Cleanup(func() { _, _ = Down(ctx, name, opts) })

			// The process that ran Up is gone; the server must still answer.
			inst, err := Ensure(ctx, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if inst.Kind != KindLocal || inst.Owned || inst.URL != url || inst.Version == "" {
				t.Errorf("Ensure = %+v; want the recorded local instance at %s, not owned", inst, url)
			}
			pids := inst.PIDs()
			if len(pids) == 0 {
				t.Fatal("no PIDs for the recorded instance")
			}
			addrs := listenersOf(pids)
			if err := inst.Stop(ctx); err != nil || !dialOK(urlPort(t, url)) {
				t.Fatalf("Stop of a recorded instance must do nothing (err %v)", err)
			}
			if name != "nats" { // nats from Up is iobench's own binary, which tests do not build
				inst = restartRecorded(t, inst, opts)
				pids = inst.PIDs()
				addrs = listenersOf(pids)
			}
			again, started, err := Up(ctx, name, opts)
			if err != nil || started || again.URL != url {
				t.Errorf("second Up = %v, %v, %v; want the same instance, not started", again, started, err)
			}
			other := map[bool]string{true: "memcached", false: "postgres"}[name == "postgres"] // not up
			probes := Running(ctx, []string{name, other}, opts)
			if len(probes) != 1 || probes[0].Err != nil || probes[0].Source != "services up" {
				t.Errorf("Running = %+v", probes)
			}

			stopped, err := Down(ctx, name, opts)
			if err != nil || !stopped {
				t.Fatalf("Down = %v, %v", stopped, err)
			}
			assertGone(t, pids, inst.procs, addrs)
			if stopped, err := Down(ctx, name, opts); err != nil || stopped {
				t.Errorf("second Down = %v, %v; want false, nil", stopped, err)
			}
			st, err := readState(opts.StateDir)
			if err != nil || len(st.Services) != 0 {
				t.Errorf("state after Down = %+v, %v", st, err)
			}
			if _, err := os.Stat(inst.Dir); !os.IsNotExist(err) {
				t.Errorf("dir %s left after Down", inst.Dir)
			}
		})
	}
}

// restartRecorded restarts an instance recorded by Up from this process, which did not start it:
// the old processes must be gone, the URL must answer again, and the state file must name the
// new processes, which it returns as Ensure then finds them.
func restartRecorded(t *testing.T, inst *Instance, opts Options) *Instance {
	t.Helper()
	ctx := context.Background()
	before := inst.PIDs()
	if err := inst.Restart(ctx); err != nil {
		t.Fatalf("Restart of the recorded instance: %v", err)
	}
	assertGone(t, before, nil, nil)
	again, err := Ensure(ctx, inst.Name, opts)
	if err != nil {
		t.Fatalf("Ensure after Restart: %v", err)
	}
	after := again.PIDs()
	if again.URL != inst.URL || len(after) == 0 || slices.Contains(after, before[0]) {
		t.Fatalf("after Restart: %s pids %v (before %v); want the same URL, new processes", again.Redacted(), after, before)
	}
	return again
}

// TestNoOrphans kills a process that started servers for a run: they must stop by themselves.
func TestNoOrphans(t *testing.T) {
	for _, name := range []string{"redis", "rabbitmq", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions(t)
			cmd, f := runHelper(t, "hang", name, opts.StateDir)
			var pids []int
			for _, s := range f[1:] {
				n, _ := strconv.Atoi(s)
				pids = append(pids, n)
			}
			addrs := listenersOf(pids)
			if len(pids) == 0 || len(addrs) == 0 {
				t.Fatalf("helper pids %v, listeners %v", pids, addrs)
			}
			cmd.Process.Kill()
			cmd.Wait()
			gone := waitUntil(context.Background(), 30*time.Second, func() bool {
				for _, pid := range pids {
					if st, err := procstat.ReadStat(pid); err == nil && !st.Zombie() {
						return false
					}
				}
				return true
			})
			if !gone {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				t.Fatalf("processes %v outlived the process that started them", pids)
			}
			assertGone(t, pids, nil, addrs)
		})
	}
}
