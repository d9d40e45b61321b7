package merge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/iobench/iobench/internal/result"
)

// The reasons a Set refuses a record; errors.Is tells them apart.
var (
	ErrNotAgent  = errors.New("not an agent's record")
	ErrOtherRun  = errors.New("a record of another run")
	ErrDuplicate = errors.New("a second record of the same agent")
	ErrCount     = errors.New("an agent of another split")
	ErrMissing   = errors.New("agents missing")
)

// Set holds one run's agents' records, at most one per agent.
type Set struct {
	Run   string // "" until the first record, unless given
	Count int    // agents in the run; 0 until the first record, unless given
	recs  map[int]*result.Record
}

// NewSet returns an empty set for run (any run when "") of count agents (any when 0).
func NewSet(run string, count int) *Set {
	return &Set{Run: run, Count: count, recs: map[int]*result.Record{}}
}

// Add takes rec, or says why not: it is not an agent's, of another run or split, or its agent's
// record is already in.
func (s *Set) Add(rec *result.Record) error {
	a := rec.Agent
	switch {
	case a == nil:
		return fmt.Errorf("%w: it has no agent section; merge takes the records of iobench http --agent I/N", ErrNotAgent)
	case s.Run != "" && a.Run != s.Run:
		return fmt.Errorf("%w: agent %d/%d of run %q, this one is %q", ErrOtherRun, a.Index, a.Count, a.Run, s.Run)
	case s.Count != 0 && a.Count != s.Count:
		return fmt.Errorf("%w: agent %d/%d, this run has %d agents", ErrCount, a.Index, a.Count, s.Count)
	case s.recs[a.Index] != nil:
		return fmt.Errorf("%w: agent %d/%d of run %q is already in; the second is left out", ErrDuplicate, a.Index, a.Count, a.Run)
	}
	s.Run, s.Count = a.Run, a.Count
	s.recs[a.Index] = rec
	return nil
}

// Len returns how many agents' records are in.
func (s *Set) Len() int { return len(s.recs) }

// Missing returns the indexes of the agents whose records are not in.
func (s *Set) Missing() []int {
	var out []int
	for i := 0; i < s.Count; i++ {
		if s.recs[i] == nil {
			out = append(out, i)
		}
	}
	return out
}

// Complete reports whether every agent's record is in.
func (s *Set) Complete() bool { return s.Count > 0 && len(s.recs) == s.Count }

// Merge returns the merged record of a complete set; command is the merging command line.
func (s *Set) Merge(command []string) (*result.Record, error) {
	if s.Count == 0 {
		return nil, fmt.Errorf("%w: no record came in", ErrMissing)
	}
	if m := s.Missing(); len(m) > 0 {
		return nil, fmt.Errorf("%w: %s of run %q", ErrMissing, agentList(m, s.Count), s.Run)
	}
	recs := make([]*result.Record, 0, s.Count)
	for i := 0; i < s.Count; i++ {
		recs = append(recs, s.recs[i])
	}
	return records(recs, command)
}

func agentList(idx []int, n int) string {
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = fmt.Sprintf("%d/%d", x, n)
	}
	word := "agent "
	if len(idx) > 1 {
		word = "agents "
	}
	return word + strings.Join(parts, ", ")
}
