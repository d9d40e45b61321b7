package web

import (
	"time"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
)

// front accounts for the web server in front of an impl (nginx for a php_fpm impl): a service
// whose cost is recorded apart from the impl's. Its process trees are sampled when the warm-up
// ends and when the run ends: exact CPU over the measured phase (the workers live through it),
// and the memory of the last sample as its peak.
type front struct {
	name    string
	pid     int // its first root, for the record
	workers int
	meters  []*procstat.Meter
}

// frontOf returns the accounting of p's front, or nil when it has none.
func frontOf(p *impl.Process) *front {
	if p.Front == nil {
		return nil
	}
	f := &front{name: p.Front.Name, workers: p.Front.Workers}
	for _, pid := range p.Front.RootPIDs() {
		f.meters = append(f.meters, procstat.NewMeter(pid))
		if f.pid == 0 {
			f.pid = pid
		}
	}
	return f
}

// mark starts the CPU count (the end of the warm-up).
func (f *front) mark() {
	if f == nil {
		return
	}
	for _, m := range f.meters {
		m.Sample()
		m.Mark()
	}
}

// process samples the front once more and returns its record entry over wall.
func (f *front) process(wall time.Duration) []result.Process {
	if f == nil || len(f.meters) == 0 {
		return nil
	}
	var u procstat.Usage
	for _, m := range f.meters {
		m.Sample()
		mu := m.Usage()
		u.User, u.System, u.PeakRSS = u.User+mu.User, u.System+mu.System, u.PeakRSS+mu.PeakRSS
	}
	p := result.NewProcess(f.name, "service", f.pid, u, wall)
	p.Workers = f.workers
	return []result.Process{p}
}

// sutProcess is the impl's own entry: its process tree, and its pool size for a php_fpm impl.
func sutProcess(name string, p *impl.Process, wall time.Duration) result.Process {
	sp := result.NewProcess(name, "sut", p.PID(), p.Usage(), wall)
	if p.FPM != nil {
		sp.Workers = p.FPM.Workers
	}
	return sp
}
