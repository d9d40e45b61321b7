package procstat

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// burner is a Python process whose second thread burns CPU for the seconds it reads on stdin
// (its own CPU time, so a busy machine only slows it) and then prints "burnt".
const burner = `
import sys, threading, time
def burn():
    for line in sys.stdin:
        end = time.thread_time() + float(line)
        while time.thread_time() < end:
            pass
        print("burnt", flush=True)
threading.Thread(target=burn).start()
print("ready", flush=True)
`

// burn has the burner's thread spend secs of CPU and waits until it has.
func burn(t *testing.T, in io.Writer, out *bufio.Scanner, secs string) {
	t.Helper()
	if _, err := io.WriteString(in, secs+"\n"); err != nil {
		t.Fatal(err)
	}
	if !out.Scan() || out.Text() != "burnt" {
		t.Fatalf("burner: %q, %v", out.Text(), out.Err())
	}
}

// TestMeterThreads burns 0.3 s in one thread before the Mark and 0.4 s after it: the busiest
// thread's CPU over the window is the 0.4 s, and the idle main thread is not listed as busy.
func TestMeterThreads(t *testing.T) {
	cmd, in, out := startBurner(t)
	m := NewMeter(cmd.Process.Pid)
	burn(t, in, out, "0.3")
	m.Sample()
	m.Mark()
	burn(t, in, out, "0.4")
	m.Sample()
	th := m.Usage().Threads
	if len(th) == 0 || th[0] < 380*time.Millisecond || th[0] > 600*time.Millisecond {
		t.Fatalf("busiest threads %v; want the 0.4 s burnt since the Mark first", th)
	}
	if len(th) > 1 && th[1] > 50*time.Millisecond {
		t.Fatalf("busiest threads %v; the main thread only waits", th)
	}
}

// TestSetRestartedRoot: a root that replaces another after the Mark counts from its own start
// (CPU and threads), and the memory of a tree that has gone no longer counts.
func TestSetRestartedRoot(t *testing.T) {
	first, _, _ := startBurner(t)
	roots := []int{first.Process.Pid}
	var mu sync.Mutex
	s := NewSet(func() []int { mu.Lock(); defer mu.Unlock(); return roots })
	s.Mark()
	second, in, out := startBurner(t)
	burn(t, in, out, "0.3")
	mu.Lock()
	roots = []int{second.Process.Pid}
	mu.Unlock()
	_ = first.Process.Kill()
	_ = first.Wait()
	s.Sample()
	u, root, ok := s.Usage()
	if !ok || root != first.Process.Pid {
		t.Fatalf("root %d (ok %v); want the first root seen, %d", root, ok, first.Process.Pid)
	}
	if u.CPU() < 280*time.Millisecond || len(u.Threads) == 0 || u.Threads[0] < 280*time.Millisecond {
		t.Fatalf("CPU %v, threads %v; want the new root's 0.3 s", u.CPU(), u.Threads)
	}
	if self, _ := Read(second.Process.Pid); u.RSS == 0 || u.RSS > 2*self.RSS {
		t.Fatalf("memory now %d; want the second tree's only (its RSS %d)", u.RSS, self.RSS)
	}
}

// TestSelfMeterThreads spends 0.3 s of CPU in one locked thread of this process: the busiest
// thread's CPU is at least that.
func TestSelfMeterThreads(t *testing.T) {
	s := NewSelfMeter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		used := func() int64 { // this thread's CPU time; the runtime may have run it before
			var ru syscall.Rusage
			_ = syscall.Getrusage(rusageThread, &ru)
			return ru.Utime.Nano() + ru.Stime.Nano()
		}
		for start := used(); used()-start < int64(300*time.Millisecond); {
		}
	}()
	<-done
	u := s.Usage()
	if len(u.Threads) == 0 || u.Threads[0] < 280*time.Millisecond || u.Threads[0] > u.CPU()+20*time.Millisecond { // /proc counts in 10 ms ticks
		t.Fatalf("CPU %v, threads %v; want a thread with the 0.3 s", u.CPU(), u.Threads)
	}
}

// rusageThread is RUSAGE_THREAD (Linux): getrusage of the calling thread.
const rusageThread = 1

// startBurner starts the burner and returns it with its stdin and stdout.
func startBurner(t *testing.T) (*exec.Cmd, io.Writer, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command("python3", "-c", burner)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("python3: %v", err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	out := bufio.NewScanner(pipe)
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("burner did not start: %v", out.Err())
	}
	return cmd, in, out
}

func TestAddKeepsBusiestThreads(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	a := Usage{Threads: ms(50, 10, 5)}
	b := Usage{Threads: ms(70, 40, 30, 1)}
	got := a.Add(b).Threads
	if want := ms(70, 50, 40, 30); !slices.Equal(got, want) {
		t.Fatalf("Add kept threads %v, want %v", got, want)
	}
	if !slices.Equal(a.Threads, ms(50, 10, 5)) {
		t.Fatalf("Add changed its receiver's threads: %v", a.Threads)
	}
}

// TestMachineMeter burns 0.3 s of CPU: the machine was busy, and never more than all its cores.
func TestMachineMeter(t *testing.T) {
	m := NewMachineMeter()
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
	}
	if b := m.Busy(); b <= 0 || b > 100 {
		t.Fatalf("machine %v%% busy while this test burnt a core", b)
	}
}

// TestMeterPssReadOnChange: a process whose RSS stays the same has its Pss read once for two
// samples in a row (smaps_rollup is dear), and read again as soon as it grows.
func TestMeterPssReadOnChange(t *testing.T) {
	const mib = 1 << 20
	reads := 0
	readPss = func(pid int) uint64 { reads++; return pss(pid) }
	defer func() { readPss = pss }()
	cmd := startPython(t, `
import signal, time
held = []
signal.signal(signal.SIGUSR1, lambda *_: held.append(b"x" * (64 << 20)))
print("ready", flush=True)
while True:
    time.sleep(600)
`)
	pid := cmd.Process.Pid
	m := NewMeter(pid)
	m.Sample()
	m.Sample()
	if reads != 1 {
		t.Fatalf("%d Pss reads in two samples of an idle process; want 1", reads)
	}
	before := m.Usage().RSS
	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if s, err := ReadStat(pid); err == nil && s.RSS >= before+64*mib {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the process did not grow by 64 MiB")
		}
	}
	m.Sample()
	if got := m.Usage().RSS; reads != 2 || got < before+60*mib {
		t.Fatalf("after growing: %d Pss reads, memory %d MiB from %d; want a second read that sees the 64 MiB", reads, got/mib, before/mib)
	}
}
