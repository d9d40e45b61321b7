// Package procstat reads the CPU time and memory of processes from /proc, so that every
// run can say what each process (generator, system under test, services) cost.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat; 100 on every Linux we target.
const clockTicks = 100

// Usage is what one process (or a set of them) has cost so far.
type Usage struct {
	User    time.Duration // CPU time in user mode
	System  time.Duration // CPU time in kernel mode
	RSS     uint64        // resident set size now, bytes
	PeakRSS uint64        // highest resident set size seen by the kernel (VmHWM), bytes
}

// CPU returns user plus system time.
func (u Usage) CPU() time.Duration { return u.User + u.System }

// Sub returns the CPU spent between an earlier sample and u; memory figures are u's.
func (u Usage) Sub(earlier Usage) Usage {
	return Usage{User: u.User - earlier.User, System: u.System - earlier.System, RSS: u.RSS, PeakRSS: u.PeakRSS}
}

// Add sums CPU and memory of two disjoint processes.
func (u Usage) Add(o Usage) Usage {
	return Usage{User: u.User + o.User, System: u.System + o.System, RSS: u.RSS + o.RSS, PeakRSS: u.PeakRSS + o.PeakRSS}
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

// Read returns the usage of one process from /proc/PID/stat and /proc/PID/status.
func Read(pid int) (Usage, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, fmt.Errorf("procstat: process %d: %w", pid, err)
	}
	// The command name (field 2) may hold spaces and parentheses; fields resume after the last ')'.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return Usage{}, fmt.Errorf("procstat: process %d: malformed stat", pid)
	}
	f := strings.Fields(string(stat[end+1:]))
	if len(f) < 13 {
		return Usage{}, fmt.Errorf("procstat: process %d: short stat", pid)
	}
	// After ')': state(0) ppid(1) ... utime(11) stime(12).
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	u := Usage{User: ticks(ut), System: ticks(st)}
	u.RSS, u.PeakRSS = memory(pid)
	return u, nil
}

// ReadAll sums the usage of several processes; those that have exited are skipped.
func ReadAll(pids []int) Usage {
	var total Usage
	for _, pid := range pids {
		if u, err := Read(pid); err == nil {
			total = total.Add(u)
		}
	}
	return total
}

func ticks(n uint64) time.Duration { return time.Duration(n) * time.Second / clockTicks }

// memory returns VmRSS and VmHWM in bytes (0 when unknown, e.g. a zombie).
func memory(pid int) (rss, peak uint64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			rss = kib(line)
		case strings.HasPrefix(line, "VmHWM:"):
			peak = kib(line)
		}
	}
	return rss, peak
}

func kib(line string) uint64 {
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseUint(f[1], 10, 64)
	return n * 1024
}

// Tree returns pid and all its descendants, found through /proc/PID/task/*/children.
func Tree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children(out[i])...)
	}
	return out
}

func children(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}
