package relay

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/iobench/iobench/internal/relay/relaytest"
)

// TestArrivalStamp: a read says when its data reached the socket, not when the read returned:
// data left waiting 30 ms after it arrived is stamped at least 30 ms before the read, and no
// earlier than the write that caused it.
func TestArrivalStamp(t *testing.T) {
	const wait = 30 * time.Millisecond
	c := dial(t, relaytest.Server(t, relaytest.Echo))
	in := newStampedReader(c)
	untilStamped(t, c, in)
	sent := time.Now()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	seen := waitQueued(t, c)
	time.Sleep(wait)
	b := make([]byte, 8)
	n, at, err := in.Read(b)
	if err != nil || n != 1 {
		t.Fatalf("read %d bytes, %v", n, err)
	}
	if at.Before(sent) || at.After(seen) {
		t.Errorf("stamped %v after the write, want between the write and %v (when the echo was seen queued)",
			at.Sub(sent), seen.Sub(sent))
	}
	if held := time.Since(at); held < wait {
		t.Errorf("stamped %v before the read returned, want at least %v", held, wait)
	}
}

// untilStamped echoes bytes through c until a read comes back with the kernel's stamp: the kernel
// turns stamps on from a work queue, a moment after the first socket asks.
func untilStamped(t *testing.T, c net.Conn, in *stampedReader) {
	t.Helper()
	b := make([]byte, 8)
	for i := 0; i < 200; i++ {
		if _, err := c.Write([]byte("w")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := in.Read(b); err != nil {
			t.Fatal(err)
		}
		if in.stamped {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no read carried the kernel's receive stamp in 200 tries")
}

// waitQueued polls c's receive queue until it holds data, and returns when it first did. The echo
// server may be slow to run on a busy machine; the stamp must not depend on that.
func waitQueued(t *testing.T, c net.Conn) time.Time {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var queued int
		var ioctlErr error
		if err := raw.Control(func(fd uintptr) { queued, ioctlErr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }); err != nil || ioctlErr != nil {
			t.Fatal(err, ioctlErr)
		}
		if queued > 0 {
			return time.Now()
		}
		time.Sleep(100 * time.Microsecond)
	}
	t.Fatal("the echo never reached the socket")
	return time.Time{}
}
