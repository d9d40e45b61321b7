package procstat

import (
	"os"
	"sync"
)

// SelfMeter measures the calling process alone, without its children (a Meter of it would count
// the systems under test it started): CPU time and peak RSS from getrusage, as Self gives them,
// and the CPU time of each of its threads from /proc/PID/task, from NewSelfMeter to Usage. Its
// threads are read at those two moments only: a thread that exits between them is not listed
// (the Go runtime keeps its threads). Its methods are safe for concurrent use.
type SelfMeter struct {
	pid    int
	before Usage

	mu      sync.Mutex
	threads threads
}

// NewSelfMeter starts measuring the calling process now.
func NewSelfMeter() *SelfMeter {
	s := &SelfMeter{pid: os.Getpid(), before: Self()}
	s.threads.update(readThreads([]int{s.pid}))
	s.threads.mark()
	return s
}

// Usage returns the process's CPU time since NewSelfMeter, its memory (as Self) and its busiest
// threads' CPU time over that window.
func (s *SelfMeter) Usage() Usage {
	ts := readThreads([]int{s.pid})
	u := Self().Sub(s.before)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.threads.update(ts)
	u.Threads = s.threads.hot()
	return u
}
