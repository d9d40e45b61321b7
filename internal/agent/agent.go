package agent

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Spec names one agent of a run: Index (0-based, as Kubernetes' JOB_COMPLETION_INDEX) of Count.
type Spec struct {
	Index, Count int
}

// String returns the form Parse reads: "I/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Parse reads "I/N", I from 0 to N-1.
func Parse(s string) (Spec, error) {
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("--agent %q: write INDEX/COUNT with the index from 0, e.g. --agent 0/4", s)
	}
	if cnt < 1 || idx < 0 || idx >= cnt {
		return Spec{}, fmt.Errorf("--agent %q: the index runs from 0 to COUNT-1 and COUNT is at least 1, e.g. --agent 3/4", s)
	}
	return Spec{Index: idx, Count: cnt}, nil
}

// Share returns agent i's part of total split over n agents: total/n, and one more for each of
// the first total%n agents, so that the parts add up to total and differ by at most one.
func Share(total int64, i, n int) int64 {
	q, r := total/int64(n), total%int64(n)
	if int64(i) < r {
		return q + 1
	}
	return q
}

// Load is what one agent runs of a whole run's connections, rate and request count.
type Load struct {
	Connections int
	Threads     int
	Requests    int64         // 0 with a duration
	Rate        float64       // the agent's own rate, R/N; 0 in a closed loop
	Phase       time.Duration // shift of the agent's open-loop schedule: I/R
	// Stream is which of the run's independent draws of Poisson arrivals is the agent's
	// (engine.Config.Stream): I, so that no two agents of one seed draw the same ones.
	Stream uint64
}

// Whole is what the user asked of the run as a whole.
type Whole struct {
	Connections int
	Threads     int // 0: the engine's default
	Requests    int64
	Rate        float64
}

// Split returns agent s's load of w. Every agent needs a connection of its own.
func (s Spec) Split(w Whole) (Load, error) {
	if w.Connections < s.Count {
		return Load{}, fmt.Errorf("-c %d for %d agents: each agent needs a connection; use -c %d or more", w.Connections, s.Count, s.Count)
	}
	l := Load{Connections: int(Share(int64(w.Connections), s.Index, s.Count)), Threads: w.Threads, Stream: uint64(s.Index)}
	if l.Threads > l.Connections {
		l.Threads = l.Connections
	}
	if w.Requests > 0 {
		if w.Requests < int64(s.Count) {
			return Load{}, fmt.Errorf("-n %d for %d agents: each agent needs a request; use -n %d or more", w.Requests, s.Count, s.Count)
		}
		l.Requests = Share(w.Requests, s.Index, s.Count)
	}
	if w.Rate > 0 {
		l.Rate = w.Rate / float64(s.Count)
		l.Phase = time.Duration(float64(s.Index) * float64(time.Second) / w.Rate)
	}
	return l, nil
}
