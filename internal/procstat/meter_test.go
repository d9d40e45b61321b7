package procstat

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startPython runs script and returns once it has printed "ready"; the process is killed at the
// end of the test.
func startPython(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("python3", "-c", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("python3: %v", err)
	}
	t.Cleanup(func() {
		for _, pid := range Tree(cmd.Process.Pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() == "ready" {
			return cmd
		}
	}
	t.Fatalf("%s exited before printing ready", script)
	return nil
}

// TestMeterSharedMemoryOnce starts a parent holding 64 MiB and three forked children sharing it
// copy-on-write: the tree's peak must count the 64 MiB once, where a sum of VmHWM counts it four
// times.
func TestMeterSharedMemoryOnce(t *testing.T) {
	const mib = 1 << 20
	cmd := startPython(t, `
import os, time
b = b"x" * (64 << 20)
for _ in range(3):
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
print("ready", flush=True)
time.sleep(600)
`)
	m := NewMeter(cmd.Process.Pid)
	procs := m.Sample()
	if len(procs) != 4 || procs[0].PID != cmd.Process.Pid {
		t.Fatalf("sampled %+v; want the parent and its three children", procs)
	}
	var hwm uint64
	for _, p := range procs {
		_, h := memory(p.PID)
		hwm += h
	}
	u := m.Usage()
	if u.PeakRSS < 64*mib || u.PeakRSS > 96*mib || u.RSS != u.PeakRSS {
		t.Fatalf("tree peak %d MiB (now %d MiB); want the 64 MiB once", u.PeakRSS/mib, u.RSS/mib)
	}
	if hwm < 4*64*mib {
		t.Fatalf("sum of VmHWM %d MiB: the children do not share the parent's memory, so the test proves nothing", hwm/mib)
	}
}

// TestMeterReapedChildCPU burns 0.3 s of CPU in a child that exits and is reaped before the
// sample: its time must count through the parent, and Mark must restart the count.
func TestMeterReapedChildCPU(t *testing.T) {
	cmd := startPython(t, `
import os, time
pid = os.fork()
if pid == 0:
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    os._exit(0)
os.waitpid(pid, 0)
print("ready", flush=True)
time.sleep(600)
`)
	m := NewMeter(cmd.Process.Pid)
	m.Sample()
	if cpu := m.Usage().CPU(); cpu < 280*time.Millisecond || cpu > 2*time.Second {
		t.Fatalf("tree CPU %v; want the reaped child's 0.3 s", cpu)
	}
	m.Sample()
	m.Mark()
	if cpu := m.Usage().CPU(); cpu > 50*time.Millisecond {
		t.Fatalf("CPU %v after Mark; want about 0", cpu)
	}
	m.Exited(10*time.Second, 0)
	if u := m.Usage(); u.User < 9*time.Second || u.RSS != 0 {
		t.Fatalf("after Exited: %+v; want the rusage figure and no memory now", u)
	}
}

func TestStatGroupAlive(t *testing.T) {
	s, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.PPID != os.Getppid() || s.Start == 0 || s.Zombie() {
		t.Fatalf("stat of self %+v", s)
	}
	if !Alive(s.PID, s.Start) || Alive(s.PID, s.Start+1) || Alive(1<<30, 0) {
		t.Fatal("Alive does not tell this process from one with another start time or none")
	}
	found := false
	for _, g := range Group(s.PGID) {
		found = found || g.PID == s.PID
	}
	if !found {
		t.Fatalf("process group %d does not list this process", s.PGID)
	}
	if _, err := ReadStat(1 << 30); err == nil || !strings.Contains(err.Error(), "process 1073741824") {
		t.Fatalf("error for a missing process: %v", err)
	}
}
