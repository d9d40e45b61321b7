package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Stat is what /proc/PID/stat says about one process.
type Stat struct {
	PID, PPID, PGID, Session int
	State                    byte          // R, S, D, Z, ...; Z is a zombie: it has exited and waits for its parent
	User, System             time.Duration // the process's own CPU time
	// ChildUser and ChildSystem are the CPU times of the children it has waited for (cutime, cstime).
	ChildUser, ChildSystem time.Duration
	Start                  uint64 // start time in clock ticks after boot; PID and Start name one process
	RSS                    uint64 // resident set size in bytes
}

// Zombie reports whether the process has exited and only its entry is left.
func (s Stat) Zombie() bool { return s.State == 'Z' || s.State == 'X' || s.State == 'x' }

// ReadStat parses /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	return readStat("/proc/"+strconv.Itoa(pid)+"/stat", pid)
}

// readStat parses the stat file at path, of process (or thread) pid.
func readStat(path string, pid int) (Stat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stat{}, fmt.Errorf("procstat: process %d: %w", pid, err)
	}
	// The command name (field 2) may hold spaces and parentheses; fields resume after the last ')'.
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return Stat{}, fmt.Errorf("procstat: process %d: malformed stat", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 22 {
		return Stat{}, fmt.Errorf("procstat: process %d: short stat", pid)
	}
	// After ')': state(0) ppid(1) pgrp(2) session(3) ... utime(11) stime(12) cutime(13) cstime(14) ... starttime(19) vsize(20) rss(21, pages).
	n := func(i int) uint64 { v, _ := strconv.ParseUint(f[i], 10, 64); return v }
	s := Stat{PID: pid, State: f[0][0], PPID: int(n(1)), PGID: int(n(2)), Session: int(n(3)), Start: n(19), RSS: n(21) * pageSize}
	s.User, s.System = ticks(n(11)), ticks(n(12))
	s.ChildUser, s.ChildSystem = ticks(n(13)), ticks(n(14))
	return s, nil
}

// Alive reports whether process pid exists, is not a zombie and, when start is not 0, is the
// process that started at start (and not a later one that was given the same pid).
func Alive(pid int, start uint64) bool {
	s, err := ReadStat(pid)
	return err == nil && !s.Zombie() && (start == 0 || s.Start == start)
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

// Group returns the live (not zombie) processes of process group pgid: members whose leader has
// exited are no one's descendants, so every process is looked at.
func Group(pgid int) []Stat {
	return Find(func(s Stat) bool { return s.PGID == pgid })
}

// Find returns the live (not zombie) processes for which match is true, reading the stat of
// every process in /proc.
func Find(match func(Stat) bool) []Stat {
	entries, _ := os.ReadDir("/proc")
	var out []Stat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := ReadStat(pid); err == nil && !s.Zombie() && match(s) {
			out = append(out, s)
		}
	}
	return out
}
