package httpload

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawIO returns nc reading and writing with raw system calls when it is a TCP connection, and
// nc itself otherwise. Its socket is non-blocking, as every socket of Go's net is, so each read
// and write returns at once: EAGAIN parks the goroutine on the runtime's poller, as net does, and
// deadlines hold as they do for nc. What changes is that the runtime never sees the thread inside
// a system call. Through net, a write or read that outlasts sysmon's 20 µs tick (a loaded
// loopback, the thread descheduled) has its P handed to another thread: with GOMAXPROCS=1, the
// goroutine engine's https run at -c100 spread its work over six threads taking turns on one
// core, with twice the context switches per request.
func rawIO(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	c := &rawConn{TCPConn: tc, rc: rc}
	c.read.fn, c.write.fn = c.readFd, c.writeFd
	return c
}

// rawConn is a TCP connection whose Read and Write are raw system calls (see rawIO). The
// callbacks handed to the RawConn are bound once, with their state in the connection, so that a
// Read or Write allocates nothing; read and write keep apart, as crypto/tls may write (an alert)
// while a Read is in progress.
type rawConn struct {
	*net.TCPConn
	rc          syscall.RawConn
	read, write rawOp
}

// rawOp is one direction's call in progress: its buffer, what it did, and its bound callback.
type rawOp struct {
	p     []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

// Read reads into p once data is there, as net.Conn's Read: io.EOF when the peer closed.
func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	op := &c.read
	op.p, op.n, op.errno = p, 0, 0
	err := c.rc.Read(op.fn)
	n, errno := op.n, op.errno
	op.p = nil
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readFd is Read's callback: one read, again on EAGAIN once the socket is readable.
func (c *rawConn) readFd(fd uintptr) bool {
	op := &c.read
	op.n, op.errno = RawCall(syscall.SYS_READ, fd, op.p)
	return op.errno != syscall.EAGAIN
}

// Write writes all of p, as net.Conn's Write.
func (c *rawConn) Write(p []byte) (int, error) {
	op := &c.write
	op.p, op.n, op.errno = p, 0, 0
	err := c.rc.Write(op.fn)
	n, errno := op.n, op.errno
	op.p = nil
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, os.NewSyscallError("write", errno)
	}
	return n, nil
}

// writeFd is Write's callback: writes until all of p is out, again on EAGAIN once writable.
func (c *rawConn) writeFd(fd uintptr) bool {
	op := &c.write
	for op.n < len(op.p) {
		m, e := RawCall(syscall.SYS_WRITE, fd, op.p[op.n:])
		if e == syscall.EAGAIN {
			return false
		}
		if e != 0 {
			op.errno = e
			return true
		}
		op.n += m
	}
	return true
}

// RawCall makes the read or write system call trap on fd and p (not empty) without telling the
// runtime (the socket must be non-blocking), retrying on EINTR; the event-loop engine uses it too.
func RawCall(trap, fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		r, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}
