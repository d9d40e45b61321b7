package bus

import (
	"context"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/procstat"
)

// meter measures what a service's processes cost during the run. Processes are matched by pid,
// so that a restarted broker or a database backend that came later counts from its own start.
type meter struct {
	pids func() []int
	base map[int]procstat.Usage
}

func newMeter(pids func() []int) *meter {
	m := &meter{pids: pids, base: map[int]procstat.Usage{}}
	if pids != nil {
		for _, pid := range pids() {
			if u, err := procstat.Read(pid); err == nil {
				m.base[pid] = u
			}
		}
	}
	return m
}

// usage returns the CPU spent since newMeter by the processes alive now, and their peak RSS.
func (m *meter) usage() (procstat.Usage, bool) {
	if m.pids == nil {
		return procstat.Usage{}, false
	}
	var total procstat.Usage
	pids := m.pids()
	for _, pid := range pids {
		u, err := procstat.Read(pid)
		if err != nil {
			continue
		}
		if b, ok := m.base[pid]; ok {
			u = u.Sub(b)
		}
		total = total.Add(u)
	}
	return total, len(pids) > 0
}

// depthReader reads the total depth of the bus queues over a connection of its own, reopened
// after a failure; while the broker is away it returns an error.
type depthReader struct {
	url    string
	queues []string
	b      backend.Broker
}

func (d *depthReader) depth(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if d.b == nil {
		b, err := openBroker(ctx, d.url)
		if err != nil {
			return 0, err
		}
		d.b = b
	}
	var sum int64
	for _, q := range d.queues {
		n, err := d.b.Depth(ctx, q)
		if err != nil {
			d.close()
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

func (d *depthReader) close() {
	if d.b != nil {
		d.b.Close()
		d.b = nil
	}
}
