package procstat

import (
	"cmp"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"
)

// HotThreads is how many of the busiest threads a Usage lists.
const HotThreads = 4

// threadID names one thread: its id and its start time, so that a reused id is another thread.
type threadID struct {
	tid   int
	start uint64
}

// threadCPU is the CPU time (user plus system) of each thread at one sample.
type threadCPU map[threadID]time.Duration

// readThreads reads the CPU time of every thread of the processes pids from
// /proc/PID/task/TID/stat (in clock ticks of 10 ms); threads that have gone are skipped.
func readThreads(pids []int) threadCPU {
	out := threadCPU{}
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/task/"
		tasks, _ := os.ReadDir(dir)
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if s, err := readStat(dir+t.Name()+"/stat", tid); err == nil {
				out[threadID{tid, s.Start}] = s.User + s.System
			}
		}
	}
	return out
}

// threads follows the CPU time of each thread of some processes over a window: from the last
// mark (or the first sample) to the last sample. A thread first seen after the mark started after
// it and counts from 0; one that exits counts up to its last sample.
type threads struct {
	now  threadCPU // every thread seen since the mark, at its last sample
	last threadCPU // the last sample
	base threadCPU // at the mark
}

// update takes a sample.
func (t *threads) update(s threadCPU) {
	if t.now == nil {
		t.now = threadCPU{}
	}
	maps.Copy(t.now, s)
	t.last = s
}

// mark starts the window at the last sample, forgetting the threads that were not in it.
func (t *threads) mark() {
	t.now, t.base = maps.Clone(t.last), maps.Clone(t.last)
}

// hot returns the CPU time over the window of the busiest threads (at most HotThreads, busiest
// first, none that used no CPU).
func (t *threads) hot() []time.Duration {
	var d []time.Duration
	for id, v := range t.now {
		if x := v - t.base[id]; x > 0 {
			d = append(d, x)
		}
	}
	return busiest(d)
}

// busiest returns the HotThreads largest of d, largest first; it reorders d.
func busiest(d []time.Duration) []time.Duration {
	slices.SortFunc(d, func(a, b time.Duration) int { return cmp.Compare(b, a) })
	return slices.Clip(d[:min(len(d), HotThreads)])
}
