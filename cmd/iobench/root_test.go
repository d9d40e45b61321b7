package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/procstat"
)

// TestCommandReapsLeftovers leaves a process group recorded by an iobench that is gone, as a
// killed iobench would: the next command, whatever it is, must stop it and say so in one line.
func TestCommandReapsLeftovers(t *testing.T) {
	state := t.TempDir()
	t.Setenv(env.StateDir, state)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", "60")
	left.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = left.Process.Kill(); _ = left.Wait() })
	st, err := procstat.ReadStat(left.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(map[string]any{"pgid": st.PID, "start": st.Start, "owner": dead.Process.Pid, "name": "leftover"})
	if err := os.MkdirAll(filepath.Join(state, "sut"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "sut", "rec.json"), rec, 0o644); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runCLI("version")
	want := fmt.Sprintf("iobench: stopped 1 process of leftover (pgid %d) left by an iobench that was killed\n", st.PID)
	if code != 0 || stderr != want {
		t.Fatalf("exit %d, stderr %q; want %q", code, stderr, want)
	}
	if procstat.Alive(st.PID, st.Start) {
		t.Fatal("the leftover process still runs")
	}
	if code, _, stderr := runCLI("version"); code != 0 || stderr != "" {
		t.Fatalf("second command: exit %d, stderr %q; want nothing left to say", code, stderr)
	}
}
