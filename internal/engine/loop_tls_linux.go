package engine

import (
	"context"
	"errors"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/iobench/iobench/internal/httpload"
)

// HTTP/2 over TLS on the event loop. crypto/tls needs a net.Conn, which the loop's raw
// non-blocking sockets are not, and its handshake cannot be resumed after an EAGAIN. So each h2
// connection of an https run is a socketpair: the loop speaks HTTP/2 on its end with the very code
// it speaks h2c with (loop_h2_linux.go), and a goroutine, the bridge, dials the server, runs the
// handshake (ALPN h2 alone, the run's session cache), and copies bytes both ways between the
// other end and the TLS connection. The first byte the bridge writes says how the dial went
// (bridgeUp, or bridgeDown for a connect error: refused, timed out, a failed handshake, or a
// server that did not choose h2); a closed end closes the other. The bridge costs a copy and two
// more system calls each way, which the latency of a request includes, as it does encryption.

// The bridge's first byte.
const (
	bridgeDown byte = 0
	bridgeUp   byte = 1
)

// dialBridge returns the loop's end of a new socketpair and starts the bridge on the other.
func (l *loop) dialBridge() (int, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	f := os.NewFile(uintptr(fds[1]), "h2-bridge")
	end, err := net.FileConn(f) // a duplicate, on the runtime's poller
	f.Close()
	if err != nil {
		unix.Close(fds[0])
		return -1, err
	}
	go l.bridge(end)
	return fds[0], nil
}

// bridge dials the target over TLS for the loop's end of the socketpair whose other end is end,
// tells the loop how it went, and copies between them until either side closes.
func (l *loop) bridge(end net.Conn) {
	defer end.Close()
	cfg := &l.r.cfg
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout) // as the loop's connect deadline
	tc, err := httpload.DialTLS(ctx, cfg.Target.Addr, cfg.TLS, cfg.Timeout)
	cancel()
	if err == nil && tc.Setup().Protocol != httpload.ALPNH2 {
		tc.Close()
		err = errNoH2
	}
	if err != nil {
		end.Write([]byte{bridgeDown})
		return
	}
	defer tc.Close()
	l.g.opened(tc.Setup())
	if _, err := end.Write([]byte{bridgeUp}); err != nil {
		return
	}
	nc := tc.NetConn()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(nc, end)
		nc.Close() // the loop closed its end: so does the server's side
	}()
	io.Copy(end, nc)
	end.Close() // the server closed, or the TLS connection failed: the loop reads EOF
	<-done
}

// errNoH2 fails a bridge's dial whose server chose another protocol than h2 (the run's probe says
// which, before any load: httpbench.Probe).
var errNoH2 = errors.New("the server did not choose h2 in ALPN")

// bridged reads the bridge's first byte from c, once readable: ok when the dial succeeded,
// pending while the byte has not come.
func (l *loop) bridged(c *loopConn) (ok, pending bool) {
	if !c.readable {
		return false, true
	}
	var b [1]byte
	n, again, err := retry(unix.SYS_READ, c.fd, b[:])
	if again {
		c.readable = false
		return false, true
	}
	return err == nil && n == 1 && b[0] == bridgeUp, false
}
