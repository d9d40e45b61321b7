package web

import (
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
)

// serviceCost accounts for a service of a run (nginx in front of a php_fpm impl, a store the impl
// uses): a `service` process whose cost is recorded apart from the impl's. Its process trees are
// sampled when the warm-up ends and when the load ends: exact CPU and threads over the measured
// phase (for the processes that live through it), and the memory (Pss) of the last sample as its
// peak.
type serviceCost struct {
	name    string
	workers int
	set     *procstat.Set
}

// services is the accounting of the run's services.
type services []serviceCost

// servicesOf returns the accounting of the services of insts whose processes iobench can see
// (started by iobench, here or by `iobench services up`); the others (external, embedded, nil)
// are left out.
func servicesOf(insts ...*service.Instance) services {
	var out services
	for _, inst := range insts {
		if inst == nil || len(inst.RootPIDs()) == 0 {
			continue
		}
		out = append(out, serviceCost{name: inst.Name, workers: inst.Workers, set: procstat.NewSet(inst.RootPIDs)})
	}
	return out
}

// mark starts the count (the end of the warm-up).
func (s services) mark() {
	for _, c := range s {
		c.set.Mark()
	}
}

// processes samples the services once more and returns their record entries over wall.
func (s services) processes(wall time.Duration) []result.Process {
	var out []result.Process
	for _, c := range s {
		c.set.Sample()
		u, pid, ok := c.set.Usage()
		if !ok {
			continue
		}
		p := result.NewProcess(c.name, "service", pid, u, wall)
		p.Workers = c.workers
		out = append(out, p)
	}
	return out
}

// cost accounts for an impl and its services (its front, the stores it uses) over the measured
// phase: from the end of the warm-up (mark) to the end of the load (taken), not to the end of
// what the workload does after it (a count, a consumer's catch-up, a ZeroMQ drain).
type cost struct {
	name, cpus string
	p          *impl.Process
	svcs       services
	from       time.Time // the end of the warm-up
	procs      []result.Process
}

// mark starts the count, then runs the workload's hook (ImplRun.Warm), if any.
func (c *cost) mark(then func()) {
	c.p.Mark()
	c.svcs.mark()
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
		c.procs = append([]result.Process{sp}, c.svcs.processes(wall)...)
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
