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
	return &rawConn{TCPConn: tc, rc: rc}
}

// rawConn is a TCP connection whose Read and Write are raw system calls (see rawIO).
type rawConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

// Read reads into p once data is there, as net.Conn's Read: io.EOF when the peer closed.
func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		n, errno = rawCall(syscall.SYS_READ, fd, p)
		return errno != syscall.EAGAIN
	})
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

// Write writes all of p, as net.Conn's Write.
func (c *rawConn) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, e := rawCall(syscall.SYS_WRITE, fd, p[n:])
			if e == syscall.EAGAIN {
				return false
			}
			if e != 0 {
				errno = e
				return true
			}
			n += m
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, os.NewSyscallError("write", errno)
	}
	return n, nil
}

// rawCall makes the read or write system call trap on fd and p (not empty), retrying on EINTR.
func rawCall(trap, fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		r, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}
