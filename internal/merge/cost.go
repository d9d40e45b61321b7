package merge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/limit"
	"github.com/iobench/iobench/internal/result"
)

// The thresholds of the merge's warnings.
const (
	// MaxSpreadMs is how far apart, in milliseconds, the agents may begin measuring.
	MaxSpreadMs = 50.0
	// FarShare is how far, in percent, an agent's throughput (per share of the load it was given)
	// may be from the agents' median before it is called out.
	FarShare = 25.0
)

// costs lists every agent's processes under names of their own and says where the agents ran:
// one machine keeps its figures (how busy it was and its CPU probe, the agents' mean); several
// machines add their cores up, and how busy and how fast they were is then not known.
func costs(out *result.Record, recs []*result.Record) {
	hosts := map[string]int{}
	var busy, probe float64
	for _, r := range recs {
		for _, p := range r.Processes {
			p.Name = fmt.Sprintf("%s[%d/%d]", p.Name, r.Agent.Index, r.Agent.Count)
			out.Processes = append(out.Processes, p)
		}
		hosts[r.Agent.Host] = r.Environment.Cores
		busy += r.MachineCPU
		probe += r.CPUProbe
	}
	if len(hosts) == 1 {
		out.MachineCPU = round2(busy / float64(len(recs)))
		out.CPUProbe = round2(probe / float64(len(recs)))
		return
	}
	out.Environment.Hostname, out.Environment.Cores = "", 0
	for _, cores := range hosts {
		out.Environment.Cores += cores
	}
}

// shares returns the merged section: each agent's share and cost, and the total.
func shares(recs []*result.Record, origin time.Time) *result.Merged {
	m := &result.Merged{Run: recs[0].Agent.Run}
	for _, r := range recs {
		s := result.AgentShare{Agent: *r.Agent, Succeeded: r.Counts.Succeeded, Throughput: r.Throughput.Mean,
			Skew: round2(float64(r.StartedAt.Sub(origin)) / float64(time.Millisecond)), Warnings: r.Warnings}
		s.P99 = r.Latency.At(99)
		for i, p := range r.Processes {
			if p.Role == "generator" {
				s.Process = &r.Processes[i]
				m.CPU += p.CPUUser + p.CPUSystem
				m.PeakRSS += p.PeakRSS
			}
		}
		s.Saturated = saturated(r)
		m.Agents = append(m.Agents, s)
		m.Commands = append(m.Commands, r.Command)
	}
	m.CPU = round2(m.CPU)
	for _, s := range m.Agents {
		m.Spread = max(m.Spread, s.Skew)
	}
	m.Spread = round2(m.Spread)
	return m
}

// saturated reports whether an agent's generator was its run's limit: its own warning says so, or
// every busy thread of it was saturated.
func saturated(r *result.Record) bool {
	if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "generator saturated") }) {
		return true
	}
	for _, p := range limit.OfRecord(r).Saturated {
		for _, q := range r.Processes {
			if q.Role == "generator" && strings.HasPrefix(p.Name, q.Name) {
				return true
			}
		}
	}
	return false
}

// warnings says what a reader of the merged record must know: agents that did not start
// together, an agent that was its own limit, an agent whose throughput stands apart.
func warnings(m *result.Merged, recs []*result.Record) []string {
	var w []string
	if m.Spread > MaxSpreadMs {
		w = append(w, fmt.Sprintf("agents began measuring %.0f ms apart (more than %.0f ms): their seconds overlap only in part; check the machines' clocks (NTP) and --start-at", m.Spread, MaxSpreadMs))
	}
	for _, s := range m.Agents {
		if s.Saturated {
			w = append(w, fmt.Sprintf("agent %d/%d was saturated: its generator, not the server, may have been the limit; add agents or cores", s.Index, s.Count))
		}
	}
	return append(w, farAgents(recs)...)
}

// farAgents names the agents whose throughput per share of the load is more than FarShare
// percent from the agents' median. A share is the agent's connections in a closed loop, its rate
// in an open one.
func farAgents(recs []*result.Record) []string {
	if len(recs) < 2 {
		return nil
	}
	per := make([]float64, len(recs))
	for i, r := range recs {
		share := number(r.Parameters["connections"])
		if r.Throughput.TargetRate > 0 {
			share = r.Throughput.TargetRate
		}
		if share > 0 {
			per[i] = r.Throughput.Mean / share
		}
	}
	sorted := slices.Sorted(slices.Values(per))
	med := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		med = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	var w []string
	for i, v := range per {
		if med > 0 && 100*abs(v-med)/med > FarShare {
			r := recs[i]
			w = append(w, fmt.Sprintf("agent %d/%d's throughput (%.0f req/s) is %+.0f%% from the agents' median for its share: a slower machine or network path; look at it before trusting the whole",
				r.Agent.Index, r.Agent.Count, r.Throughput.Mean, 100*(v-med)/med))
		}
	}
	return w
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
