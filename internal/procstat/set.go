package procstat

import (
	"sync"
	"time"
)

// Set meters the process trees of a service whose processes may change while it is measured
// (PostgreSQL's postmaster and the backends it forks, a broker restarted during the run): a Meter
// for each root that roots returns, a root first seen after the Mark counted from its own start.
// Its CPU is the sum of its meters' (a tree that has gone keeps what it was last seen to use); its
// memory the highest sampled sum of the live trees' Pss; its threads the busiest of all its
// trees'. Its methods are safe for concurrent use.
type Set struct {
	roots func() []int

	mu        sync.Mutex
	meters    []*Meter
	mem, peak uint64
}

// NewSet returns a Set of the trees whose roots roots returns (the roots iobench started for a
// service); it samples nothing yet.
func NewSet(roots func() []int) *Set {
	return &Set{roots: roots}
}

// Sample reads every root's tree now, starting a Meter for each root it has not seen.
func (s *Set) Sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range s.roots() {
		if !s.knows(pid) {
			s.meters = append(s.meters, NewMeter(pid))
		}
	}
	var mem uint64
	for _, m := range s.meters {
		m.Sample()
		mem += m.Usage().RSS
	}
	s.mem, s.peak = mem, max(s.peak, mem)
}

// knows reports whether a meter follows the process pid (the same pid and start time).
func (s *Set) knows(pid int) bool {
	st, err := ReadStat(pid)
	for _, m := range s.meters {
		if m.root == pid && (err != nil || st.Start == m.start) {
			return true
		}
	}
	return false
}

// Mark samples, then restarts the CPU and thread counts of every tree from now.
func (s *Set) Mark() {
	s.Sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.meters {
		m.Mark()
	}
}

// Watch samples every period until the returned function is called (it takes a last sample).
func (s *Set) Watch(period time.Duration) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.Sample()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done); <-exited; s.Sample() })
	}
}

// Usage returns what the trees used since the Mark (see Set), and the first root, for the
// record; ok is false when no root was ever seen. It does not sample.
func (s *Set) Usage() (u Usage, root int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.meters {
		u = u.Add(m.Usage())
	}
	u.RSS, u.PeakRSS = s.mem, s.peak
	if len(s.meters) == 0 {
		return u, 0, false
	}
	return u, s.meters[0].root, true
}
