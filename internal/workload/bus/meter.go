package bus

import (
	"context"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/procstat"
)

// meter measures what a service's processes cost during the run: a procstat.Set of the trees
// iobench started for it (a restarted broker counts from its own start; the database's backends
// by Pss, so its shared buffers count once), sampled every servicePeriod for its peak memory.
type meter struct {
	set  *procstat.Set
	stop func()
}

// servicePeriod is how often a service's processes are sampled during a run.
const servicePeriod = time.Second

// newMeter starts measuring the trees whose roots roots returns; nil measures nothing.
func newMeter(roots func() []int) *meter {
	if roots == nil {
		return &meter{stop: func() {}}
	}
	s := procstat.NewSet(roots)
	s.Mark()
	return &meter{set: s, stop: s.Watch(servicePeriod)}
}

// cost is what a service cost over the run; ok is false when it was not measured.
type cost struct {
	u    procstat.Usage
	root int // the first process of the service, for the record
	ok   bool
}

// newCost stops m's sampling and returns what the service cost since newMeter.
func newCost(m *meter) cost {
	m.stop()
	if m.set == nil {
		return cost{}
	}
	u, root, ok := m.set.Usage()
	return cost{u, root, ok}
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
