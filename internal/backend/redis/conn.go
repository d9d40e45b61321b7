package redis

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"time"
)

// errClosed is how a command fails on a connection its client closed.
var errClosed = errors.New("redis: client closed")

// conn is one pipelined connection. Every caller appends its command to one output buffer and
// waits; a writer goroutine sends whatever has gathered in one write while the previous write
// is in flight, and a reader goroutine reads the replies in order and hands each to the oldest
// waiting call. So concurrent commands share syscalls, and Redis reads many per read.
//
// A broken connection (a failed write or read, a protocol error, no reply within the timeout,
// Close) fails every call waiting on it and every later one: nothing waits for a connection
// that cannot answer, and nothing is sent twice.
type conn struct {
	nc      net.Conn
	br      *bufio.Reader
	timeout time.Duration // for a write, and for the oldest command's reply

	mu       sync.Mutex
	out      []byte // encoded commands not yet handed to the writer
	pending  queue  // calls without their reply, oldest first
	flushing bool   // the writer is woken for out
	idle     bool   // the reader waits for a call
	err      error  // why the connection broke; set once

	wake    chan struct{} // to the writer: out has commands
	arrived chan struct{} // to the reader: a call waits
	broken  chan struct{} // closed with err
}

// call is one command's wait for its reply.
type call struct {
	block time.Duration // a blocking command's own wait, added to the reply timeout
	r     reply
	err   error
	done  chan struct{}
}

var calls = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

// newConn starts the writer and reader of nc.
func newConn(nc net.Conn, timeout time.Duration) *conn {
	c := &conn{
		nc: nc, br: bufio.NewReaderSize(nc, 16<<10), timeout: timeout,
		wake: make(chan struct{}, 1), arrived: make(chan struct{}, 1), broken: make(chan struct{}),
	}
	go c.write()
	go c.read()
	return c
}

// do sends the command args and waits for its reply. block is how long a blocking command may
// wait in the server before it answers. The wait is not cut short by a context: an abandoned
// command could still take a message (BRPOP), and the timeout bounds it anyway.
func (c *conn) do(block time.Duration, args ...string) (reply, error) {
	cl := calls.Get().(*call)
	cl.block = block
	if err := c.send(cl, args); err != nil {
		calls.Put(cl)
		return reply{}, err
	}
	<-cl.done
	r, err := cl.r, cl.err
	cl.r, cl.err = reply{}, nil
	calls.Put(cl)
	return r, err
}

// send queues cl's command and wakes the writer and the reader if they sleep.
func (c *conn) send(cl *call, args []string) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.out = appendCommand(c.out, args...)
	c.pending.push(cl)
	wakeWriter, wakeReader := !c.flushing, c.idle
	c.flushing, c.idle = true, false
	c.mu.Unlock()
	if wakeWriter {
		c.wake <- struct{}{}
	}
	if wakeReader {
		c.arrived <- struct{}{}
	}
	return nil
}

// write sends what the callers have queued, one write per wake-up; it reuses two buffers.
func (c *conn) write() {
	var spare []byte
	var deadline time.Time
	for {
		select {
		case <-c.wake:
		case <-c.broken:
			return
		}
		c.mu.Lock()
		buf := c.out
		c.out, c.flushing = spare[:0], false
		c.mu.Unlock()
		deadline = c.extend(deadline, 0, c.nc.SetWriteDeadline)
		if _, err := c.nc.Write(buf); err != nil {
			c.fail(err)
			return
		}
		spare = buf
	}
}

// read reads the replies while calls wait, and sleeps while none does.
func (c *conn) read() {
	var deadline time.Time
	for {
		// head's block is read under the lock: once fail has answered head, its caller may
		// put it back in the pool and another command take it and set a new block.
		c.mu.Lock()
		head := c.pending.front()
		var block time.Duration
		if head != nil {
			block = head.block
		} else if c.err == nil {
			c.idle = true
		}
		err := c.err
		c.mu.Unlock()
		switch {
		case err != nil:
			return
		case head == nil:
			select {
			case <-c.arrived:
			case <-c.broken:
			}
			continue
		}
		deadline = c.extend(deadline, block, c.nc.SetReadDeadline)
		r, err := readReply(c.br)
		var redisErr Error
		if err != nil && !errors.As(err, &redisErr) {
			c.fail(err)
			return
		}
		c.complete(r, err)
	}
}

// complete hands a reply to the oldest waiting call, unless the connection broke meanwhile
// (fail has answered it then).
func (c *conn) complete(r reply, err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	cl := c.pending.pop()
	c.mu.Unlock()
	cl.r, cl.err = r, err
	cl.done <- struct{}{}
}

// extend moves a deadline (set by set) to at least timeout from now, plus block for a blocking
// command. Without block it moves only when less than the timeout is left (to two timeouts
// ahead), so a busy connection rarely touches the runtime's timers.
func (c *conn) extend(deadline time.Time, block time.Duration, set func(time.Time) error) time.Time {
	now := time.Now()
	if block == 0 && deadline.Sub(now) >= c.timeout {
		return deadline
	}
	deadline = now.Add(block + 2*c.timeout)
	_ = set(deadline) // a closed connection fails the next read or write
	return deadline
}

// fail breaks the connection: err answers every waiting call and every later one.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	waiting := c.pending.drain()
	c.mu.Unlock()
	close(c.broken)
	c.nc.Close()
	for _, cl := range waiting {
		cl.err = err
		cl.done <- struct{}{}
	}
}

// alive reports whether the connection still takes commands.
func (c *conn) alive() bool {
	select {
	case <-c.broken:
		return false
	default:
		return true
	}
}

// close breaks the connection with errClosed.
func (c *conn) close() { c.fail(errClosed) }

// queue is a FIFO of calls in a slice that is reused once drained and compacted when its
// consumed head grows past half of it.
type queue struct {
	calls []*call
	head  int
}

func (q *queue) push(cl *call) {
	if q.head > 64 && q.head > len(q.calls)/2 {
		n := copy(q.calls, q.calls[q.head:])
		clear(q.calls[n:])
		q.calls, q.head = q.calls[:n], 0
	}
	q.calls = append(q.calls, cl)
}

func (q *queue) front() *call {
	if q.head == len(q.calls) {
		return nil
	}
	return q.calls[q.head]
}

func (q *queue) pop() *call {
	cl := q.calls[q.head]
	q.calls[q.head] = nil
	if q.head++; q.head == len(q.calls) {
		q.calls, q.head = q.calls[:0], 0
	}
	return cl
}

// drain empties the queue and returns what it held, oldest first.
func (q *queue) drain() []*call {
	out := append([]*call(nil), q.calls[q.head:]...)
	clear(q.calls)
	q.calls, q.head = q.calls[:0], 0
	return out
}
