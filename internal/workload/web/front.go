package web

import (
	"time"

	"github.com/iobench/iobench/internal/engine"
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

// cost accounts for an impl and its front over the measured phase: from the end of the warm-up
// (mark) to the end of the load (taken), not to the end of what the workload does after it (a
// count, a consumer's catch-up, a ZeroMQ drain).
type cost struct {
	name, cpus string
	p          *impl.Process
	fr         *front
	from       time.Time // the end of the warm-up
	procs      []result.Process
}

// mark starts the count, then runs the workload's hook (ImplRun.Warm), if any.
func (c *cost) mark(then func()) {
	c.p.Mark()
	c.fr.mark()
	if then != nil {
		then()
	}
}

// taken returns the hook on the engine's result: it takes the cost, then runs the workload's
// (ImplRun.Result), if any.
func (c *cost) taken(then func(*engine.Result)) func(*engine.Result) {
	return func(res *engine.Result) {
		wall := time.Since(c.from)
		sp := sutProcess(c.name, c.p, wall)
		sp.CPUs = c.cpus
		c.procs = append([]result.Process{sp}, c.fr.process(wall)...)
		if then != nil {
			then(res)
		}
	}
}

// sutProcess is the impl's own entry: its process tree, and its pool size for a php_fpm impl.
func sutProcess(name string, p *impl.Process, wall time.Duration) result.Process {
	sp := result.NewProcess(name, "sut", p.PID(), p.Usage(), wall)
	if p.FPM != nil {
		sp.Workers = p.FPM.Workers
	}
	return sp
}
