package procstat

import (
	"slices"
	"sync"
	"time"
)

// Meter measures the CPU seconds and peak memory of a process tree: a root process and all its
// descendants, such as a pre-forking server and its workers. It reads /proc when Sample is called;
// its methods are safe for concurrent use.
//
// CPU: a sample sums, over the tree's processes, their own user and system time and that of the
// children they have waited for (cutime, cstime), so a worker that has exited and was reaped still
// counts through its parent. The figure is the highest sum sampled, a lower bound: a process that
// leaves the tree (its parent exits) and exits unreaped by the tree is counted up to its last
// sample. /proc counts in clock ticks of 10 ms. Once the root has exited, Exited takes the kernel's
// exact account (wait4's rusage of the root and the children it waited for) when it is larger.
//
// Memory: a sample sums the proportional set size (Pss, /proc/PID/smaps_rollup) of the tree's
// processes: a page shared by n processes counts 1/n in each, so memory the workers share
// copy-on-write with their parent, and shared libraries, count once rather than once per process
// as a sum of RSS or VmHWM would. The peak is the highest sum sampled; a peak that lasts less than
// the time between samples can be missed. Where smaps_rollup is missing (Linux < 4.14), VmRSS
// stands in for Pss. A process's Pss is read again only when its RSS (from the stat file the
// sample reads anyway) has changed since the last read, or that read is pssRefresh old: reading
// smaps_rollup walks the process's page tables, about 1 ms of CPU for a PHP-FPM worker, and five
// samples a second of a pool's 15 processes made it most of iobench's own CPU in a fanout run,
// taken from the cores the service measured needs. A change in sharing alone (a sibling forked
// or gone) shows within pssRefresh.
//
// Threads: a sample also reads the CPU time of each thread of the tree's live processes
// (/proc/PID/task/TID/stat), and Usage lists the busiest threads' CPU from the Mark to the last
// sample (see threads); it tells a process held back by one thread from one that spreads its work.
type Meter struct {
	root  int
	start uint64 // the root's start time, so that a reused pid is not mistaken for the root

	mu                sync.Mutex
	user, sys         time.Duration // highest sums sampled (or from Exited)
	baseUser, baseSys time.Duration // at the last Mark
	mem, peak         uint64        // tree memory at the last sample, and its highest
	threads           threads
	pss               map[int]pssRead // each live process's last Pss read
}

// pssRefresh is how old a process's Pss read may grow while its RSS stays the same.
const pssRefresh = time.Second

// pssRead is a process's Pss as read at a time, with the RSS it had then.
type pssRead struct {
	start, rss, pss uint64
	at              time.Time
}

// NewMeter returns a Meter of the tree rooted at pid, which must be alive.
func NewMeter(pid int) *Meter {
	m := &Meter{root: pid, pss: map[int]pssRead{}}
	if s, err := ReadStat(pid); err == nil {
		m.start = s.Start
	}
	return m
}

// Sample reads the tree now and returns its processes (zombies included): the root first, then
// its descendants. It returns nothing once the root has gone, and the tree then has no memory.
func (m *Meter) Sample() []Stat {
	var procs []Stat
	var live []int
	var user, sys time.Duration
	var mem uint64
	for _, pid := range Tree(m.root) {
		s, err := ReadStat(pid)
		if err != nil || (pid == m.root && s.Start != m.start) {
			continue
		}
		procs = append(procs, s)
		user += s.User + s.ChildUser
		sys += s.System + s.ChildSystem
		if !s.Zombie() {
			mem += m.pssOf(s)
			live = append(live, pid)
		}
	}
	whole := len(procs) > 0 && procs[0].PID == m.root
	var ts threadCPU
	if whole {
		ts = readThreads(live)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !whole {
		m.mem = 0
		return nil
	}
	m.user, m.sys = max(m.user, user), max(m.sys, sys)
	m.mem = mem
	m.peak = max(m.peak, mem)
	m.threads.update(ts)
	for pid := range m.pss {
		if !slices.Contains(live, pid) {
			delete(m.pss, pid)
		}
	}
	return procs
}

// readPss reads a process's Pss (a variable so that tests can count the reads).
var readPss = pss

// pssOf returns the Pss of the live process s: read again when its RSS has changed since the
// last read, or that read is pssRefresh old.
func (m *Meter) pssOf(s Stat) uint64 {
	now := time.Now()
	m.mu.Lock()
	last, ok := m.pss[s.PID]
	m.mu.Unlock()
	if ok && last.start == s.Start && last.rss == s.RSS && now.Sub(last.at) < pssRefresh {
		return last.pss
	}
	v := readPss(s.PID)
	m.mu.Lock()
	m.pss[s.PID] = pssRead{start: s.Start, rss: s.RSS, pss: v, at: now}
	m.mu.Unlock()
	return v
}

// Exited takes the CPU time of the exited root and the children it waited for, from wait4's
// rusage, where it is more than the samples saw.
func (m *Meter) Exited(user, sys time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.user, m.sys = max(m.user, user), max(m.sys, sys)
	m.mem = 0
}

// Mark restarts the CPU count from the last sample (take one just before, e.g. when measurement
// begins).
func (m *Meter) Mark() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.baseUser, m.baseSys = m.user, m.sys
	m.threads.mark()
}

// Usage returns the tree's CPU time since the last Mark (or since it started), its memory at the
// last sample and the highest sampled, and its busiest threads' CPU time from the Mark to the last
// sample; see Meter for what they count. It does not sample.
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Usage{User: m.user - m.baseUser, System: m.sys - m.baseSys, RSS: m.mem, PeakRSS: m.peak, Threads: m.threads.hot()}
}
