package procstat

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat; 100 on every Linux we target.
const clockTicks = 100

// pageSize is the size of a memory page, the unit of /proc/PID/stat's rss.
var pageSize = uint64(os.Getpagesize())

// Usage is what one process (or a set of them) has cost so far.
type Usage struct {
	User   time.Duration // CPU time in user mode
	System time.Duration // CPU time in kernel mode
	RSS    uint64        // resident memory now, bytes
	// PeakRSS is the highest resident memory seen, bytes: for one process (Read, Self) the
	// kernel's own peak (VmHWM, ru_maxrss); for a process tree (Meter) the highest sampled sum
	// of its processes' proportional set sizes, which counts shared memory once.
	PeakRSS uint64
	// Threads is the CPU time of the busiest threads over the measured window, busiest first, at
	// most HotThreads; only meters (Meter, Set, SelfMeter) fill it.
	Threads []time.Duration
}

// CPU returns user plus system time.
func (u Usage) CPU() time.Duration { return u.User + u.System }

// Sub returns the CPU spent between an earlier sample and u; memory figures and threads are u's.
func (u Usage) Sub(earlier Usage) Usage {
	return Usage{User: u.User - earlier.User, System: u.System - earlier.System, RSS: u.RSS, PeakRSS: u.PeakRSS, Threads: u.Threads}
}

// Add sums CPU and memory of two disjoint processes, and keeps the busiest of their threads.
func (u Usage) Add(o Usage) Usage {
	return Usage{User: u.User + o.User, System: u.System + o.System, RSS: u.RSS + o.RSS, PeakRSS: u.PeakRSS + o.PeakRSS,
		Threads: busiest(append(slices.Clone(u.Threads), o.Threads...))}
}

// Self returns the usage of the calling process from getrusage(2); its peak RSS is ru_maxrss.
func Self() Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Usage{}
	}
	u := Usage{
		User:    time.Duration(ru.Utime.Nano()),
		System:  time.Duration(ru.Stime.Nano()),
		PeakRSS: uint64(ru.Maxrss) * 1024,
	}
	if p, err := Read(os.Getpid()); err == nil {
		u.RSS = p.RSS
	}
	return u
}

// Read returns the usage of one process from /proc/PID/stat and /proc/PID/status: its own CPU
// time (in clock ticks of 10 ms), VmRSS and VmHWM.
func Read(pid int) (Usage, error) {
	s, err := ReadStat(pid)
	if err != nil {
		return Usage{}, err
	}
	u := Usage{User: s.User, System: s.System}
	u.RSS, u.PeakRSS = memory(pid)
	return u, nil
}

func ticks(n uint64) time.Duration { return time.Duration(n) * time.Second / clockTicks }

// memory returns VmRSS and VmHWM in bytes (0 when unknown, e.g. a zombie).
func memory(pid int) (rss, peak uint64) {
	return fieldsKiB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:", "VmHWM:")
}

// pss returns the proportional set size of a process in bytes: its resident pages, each divided
// by the number of processes sharing it. Where smaps_rollup is missing (Linux < 4.14), VmRSS.
func pss(pid int) uint64 {
	if v, _ := fieldsKiB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:", ""); v > 0 {
		return v
	}
	rss, _ := memory(pid)
	return rss
}

// fieldsKiB reads the values of two "Name: N kB" lines of a /proc file, in bytes.
func fieldsKiB(path, a, b string) (va, vb uint64) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, a):
			va = kib(line)
		case b != "" && strings.HasPrefix(line, b):
			vb = kib(line)
		}
	}
	return va, vb
}

func kib(line string) uint64 {
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseUint(f[1], 10, 64)
	return n * 1024
}
