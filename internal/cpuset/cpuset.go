// Package cpuset pins processes to CPUs, so that a benchmark can keep the generator and the
// system under test on cores of their own (what `taskset` does, without the command).
//
// A set is written as Linux writes one: "1", "0,2", "0-3". Affinity belongs to threads: a child
// inherits the mask of the thread that forks it, and a thread the mask of the thread that creates
// it. Start uses the first (fork from a locked thread given the set); Pin the second (every thread
// of this process, and so every thread it creates after).
package cpuset

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Set is a parsed CPU list; the zero Set means "not pinned".
type Set struct {
	mask unix.CPUSet
	list string // as given, normalised ("0-1,3")
}

// IsZero reports whether s pins nothing.
func (s Set) IsZero() bool { return s.list == "" }

// String returns the list in Linux's form ("0-1,3"), or "" for the zero Set.
func (s Set) String() string { return s.list }

// Count returns how many CPUs s holds.
func (s Set) Count() int { return s.mask.Count() }

// Parse reads a CPU list ("1", "0,2", "0-3"). Every CPU must be one this process may run on:
// others are an error naming the ones it may use. "" gives the zero Set.
func Parse(list string) (Set, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return Set{}, nil
	}
	cpus, err := parseList(list)
	if err != nil {
		return Set{}, err
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return Set{}, fmt.Errorf("reading this process's CPUs: %w", err)
	}
	var s Set
	for _, c := range cpus {
		if !allowed.IsSet(c) {
			return Set{}, fmt.Errorf("CPU %d is not one this machine lets iobench use (%s)", c, format(members(allowed)))
		}
		s.mask.Set(c)
	}
	s.list = format(members(s.mask))
	return s, nil
}

// parseList reads "0-2,5" into its CPUs.
func parseList(list string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= 1024 {
			return nil, fmt.Errorf("%q is not a CPU list: write CPUs as Linux does, e.g. 1, 0,2 or 0-3", list)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// members returns the CPUs of m in order.
func members(m unix.CPUSet) []int {
	var out []int
	for c := 0; c < 1024 && len(out) < m.Count(); c++ {
		if m.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// format writes CPUs as Linux does, runs folded into ranges ("0-2,5").
func format(cpus []int) string {
	sort.Ints(cpus)
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Start runs start (which forks a child, e.g. exec.Cmd.Start) on an OS thread pinned to s, so the
// child and all it starts run on s; the thread's own mask is restored after. A zero s just calls
// start.
func Start(s Set, start func() error) error {
	if s.IsZero() {
		return start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return fmt.Errorf("pinning to CPUs %s: %w", s, err)
	}
	if err := unix.SchedSetaffinity(0, &s.mask); err != nil {
		return fmt.Errorf("pinning to CPUs %s: %w", s, err)
	}
	err := start()
	_ = unix.SchedSetaffinity(0, &saved) // the mask it had a moment ago: nothing to fail on
	return err
}

// Pin moves every thread of this process to s (threads created later inherit it) and returns
// the function that moves them all back to the mask they had. A zero s pins nothing.
func Pin(s Set) (restore func(), err error) {
	if s.IsZero() {
		return func() {}, nil
	}
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return nil, fmt.Errorf("pinning iobench to CPUs %s: %w", s, err)
	}
	if err := setAll(&s.mask); err != nil {
		_ = setAll(&saved)
		return nil, fmt.Errorf("pinning iobench to CPUs %s: %w", s, err)
	}
	return func() { _ = setAll(&saved) }, nil
}

// setAll sets the mask of every thread of this process. A thread that ends meanwhile is skipped;
// one born meanwhile inherits its creator's mask, set or not, so the list is read until a pass
// finds no thread it had not set.
func setAll(m *unix.CPUSet) error {
	done := map[int]bool{}
	for pass := 0; pass < 10; pass++ {
		tids, err := threads()
		if err != nil {
			return err
		}
		fresh := false
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			fresh = true
			if err := unix.SchedSetaffinity(tid, m); err != nil && !errors.Is(err, unix.ESRCH) {
				return err
			}
			done[tid] = true
		}
		if !fresh {
			return nil
		}
	}
	return nil
}

// threads lists this process's thread ids.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}
