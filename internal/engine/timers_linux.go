package engine

// timers is a binary min-heap of one event loop's connections by their due time, indexed so
// that a connection's timer moves in O(log n) without allocating. Each connection has at most one
// timer, due by the earliest of what it waits for: its connect's or oldest request's deadline
// (or an earlier request's, which expire then moves: see loop.dueBy), its next intended start, or
// the end of its pause after a failed connect.
type timers struct {
	h []*loopConn
}

func (t *timers) len() int { return len(t.h) }

// top returns the connection due first; the heap must not be empty.
func (t *timers) top() *loopConn { return t.h[0] }

// set gives c the due time at (nanoseconds since the run's start), adding or moving its timer.
func (t *timers) set(c *loopConn, at int64) {
	old := c.due
	c.due = at
	if c.slot < 0 {
		c.slot = len(t.h)
		t.h = append(t.h, c)
		t.up(c.slot)
		return
	}
	if at < old {
		t.up(c.slot)
	} else {
		t.down(c.slot)
	}
}

// clear removes c's timer, if it has one.
func (t *timers) clear(c *loopConn) {
	i := c.slot
	if i < 0 {
		return
	}
	last := len(t.h) - 1
	t.swap(i, last)
	t.h = t.h[:last]
	c.slot = -1
	if i < last {
		t.down(i)
		t.up(i)
	}
}

func (t *timers) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if t.h[parent].due <= t.h[i].due {
			return
		}
		t.swap(i, parent)
		i = parent
	}
}

func (t *timers) down(i int) {
	for {
		small, l := i, 2*i+1
		if l < len(t.h) && t.h[l].due < t.h[small].due {
			small = l
		}
		if r := l + 1; r < len(t.h) && t.h[r].due < t.h[small].due {
			small = r
		}
		if small == i {
			return
		}
		t.swap(i, small)
		i = small
	}
}

func (t *timers) swap(i, j int) {
	t.h[i], t.h[j] = t.h[j], t.h[i]
	t.h[i].slot, t.h[j].slot = i, j
}
