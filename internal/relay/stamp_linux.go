package relay

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stampLen is the room for the one control message a stamped read receives: a cmsghdr and the
// timespec of SCM_TIMESTAMPNS.
var stampLen = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

// stampedReader reads a TCP connection with the kernel's receive time of what it read
// (SO_TIMESTAMPNS): when the data reached the socket, before the runtime's poller woke the reader.
//
// The kernel turns receive stamps on for the whole machine lazily, from a work queue, when the
// first socket asks for them: until it has, reads come back unstamped and take the time of their
// return, so a process's first packets may be stamped late by the poller's wake-up.
type stampedReader struct {
	c       net.Conn
	rc      syscall.RawConn // nil: c is no TCP connection, or it refused the option
	oob     []byte
	stamped bool // the last read carried the kernel's stamp
}

// newStampedReader asks the kernel to stamp what c receives; without the stamps it reads c plainly
// and takes the time of the read's return.
func newStampedReader(c net.Conn) *stampedReader {
	s := &stampedReader{c: c}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return s
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return s
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) }); err != nil || serr != nil {
		return s
	}
	s.rc, s.oob = rc, make([]byte, stampLen)
	return s
}

// Read reads into b and returns when the data arrived; at the end of the stream it returns
// io.EOF.
func (s *stampedReader) Read(b []byte) (int, time.Time, error) {
	if s.rc == nil {
		n, err := s.c.Read(b)
		return n, time.Now(), err
	}
	var n, oobn int
	var err error
	if rerr := s.rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, err = unix.Recvmsg(int(fd), b, s.oob, 0)
		return !errors.Is(err, unix.EAGAIN)
	}); rerr != nil {
		return 0, time.Time{}, rerr
	}
	now := time.Now()
	switch {
	case err != nil:
		return 0, now, err
	case n == 0 && len(b) > 0:
		return 0, now, io.EOF
	}
	at, ok := arrival(s.oob[:oobn], now)
	s.stamped = ok
	return n, at, nil
}

// arrival is the receive time in oob's SCM_TIMESTAMPNS message and true, or now and false
// without one (or with one from the future: the kernel's clock and ours are the same wall clock,
// but a step may come between).
func arrival(oob []byte, now time.Time) (time.Time, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return now, false
	}
	for _, m := range msgs {
		if m.Header.Level != unix.SOL_SOCKET || m.Header.Type != unix.SCM_TIMESTAMPNS || len(m.Data) < int(unsafe.Sizeof(unix.Timespec{})) {
			continue
		}
		ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
		at := time.Unix(ts.Unix())
		if at.After(now) || now.Sub(at) > time.Second {
			return now, false
		}
		// at has no monotonic reading: rebase it on now's, so that later subtractions use it.
		return now.Add(-now.Sub(at)), true
	}
	return now, false
}
