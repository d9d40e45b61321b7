package sut

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/procstat"
)

// TestReapAfterIobenchKilled runs this test binary as an iobench that starts a pre-forking
// server and is then SIGKILLed: the leader dies with it (parent-death signal), its workers do
// not. Reap must kill them all, remove the record and say so in exactly one line.
func TestReapAfterIobenchKilled(t *testing.T) {
	state := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperRole+"="+roleIobench, helperState+"="+state)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for !strings.Contains(out.String(), "leader ") && sc.Scan() {
		fmt.Fprintln(&out, sc.Text())
	}
	workers, leader := pids(t, out.String(), "workers"), pids(t, out.String(), "leader")
	killOnCleanup(t, append(workers, leader...))
	if len(workers) != 3 || len(leader) != 1 {
		t.Fatalf("fake iobench printed %q", out.String())
	}

	var msg strings.Builder
	if n := Reap(state, &msg); n != 0 || msg.Len() != 0 {
		t.Fatalf("Reap stopped %d processes of a live iobench: %q", n, msg.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, pid := range workers {
		if !procstat.Alive(pid, 0) {
			t.Fatalf("worker %d died with iobench: the test shows nothing", pid)
		}
	}

	n := Reap(state, &msg)
	want := regexp.MustCompile(fmt.Sprintf(`^iobench: stopped (\d+) processes of prefork \(pgid %d\) left by an iobench that was killed\n$`, leader[0]))
	m := want.FindStringSubmatch(msg.String())
	if m == nil || m[1] != fmt.Sprint(n) || n < len(workers) {
		t.Fatalf("Reap stopped %d and printed %q; want one line matching %s", n, msg.String(), want)
	}
	for _, pid := range append(workers, leader...) {
		if procstat.Alive(pid, 0) {
			t.Errorf("process %d survived Reap", pid)
		}
	}
	assertNoRecords(t, state)
	msg.Reset()
	if n := Reap(state, &msg); n != 0 || msg.Len() != 0 {
		t.Fatalf("second Reap stopped %d: %q", n, msg.String())
	}
}
