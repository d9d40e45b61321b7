package procstat

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Sched is what the scheduler says of one thread or a set of them (/proc/PID/task/TID/schedstat):
// time on a CPU, time waiting on a run queue to get one, and how many times they were scheduled.
type Sched struct {
	Run, Wait time.Duration
	Slices    int64
}

// Delay is the mean wait on a run queue per time scheduled, 0 when never scheduled.
func (s Sched) Delay() time.Duration {
	if s.Slices <= 0 {
		return 0
	}
	return s.Wait / time.Duration(s.Slices)
}

// SchedThreads reads the schedstat of every thread of pid, by thread id; threads whose file
// cannot be read (gone, or a kernel without schedstats) are left out.
func SchedThreads(pid int) map[int]Sched {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, _ := os.ReadDir(dir)
	out := make(map[int]Sched, len(tasks))
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if s, ok := readSched(dir + t.Name() + "/schedstat"); ok {
			out[tid] = s
		}
	}
	return out
}

// readSched parses a schedstat file: "RUN_NS WAIT_NS SLICES".
func readSched(path string) (Sched, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Sched{}, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return Sched{}, false
	}
	run, e1 := strconv.ParseInt(f[0], 10, 64)
	wait, e2 := strconv.ParseInt(f[1], 10, 64)
	n, e3 := strconv.ParseInt(f[2], 10, 64)
	if e1 != nil || e2 != nil || e3 != nil {
		return Sched{}, false
	}
	return Sched{Run: time.Duration(run), Wait: time.Duration(wait), Slices: n}, true
}

// SchedSince sums, over the threads of now, what each did since before (a thread absent from
// before counts from its start).
func SchedSince(before, now map[int]Sched) Sched {
	var s Sched
	for tid, n := range now {
		b := before[tid]
		s.Run += n.Run - b.Run
		s.Wait += n.Wait - b.Wait
		s.Slices += n.Slices - b.Slices
	}
	return s
}
