package relay

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"
)

// DownCommand is the line that takes a running `iobench serve proxy` down for a while ("down
// 2s"): it cuts every connection it relays and refuses new ones until then, then heals.
const DownCommand = "down"

// Breaker is a listener a relay serves on that can go down: while down, every connection it
// accepts is closed at once (the client sees it refused or cut), and Break cuts those it
// accepted before. It hands the relay the accepted *net.TCPConn itself (its half-close and its
// receive stamps stay), keeping only a weak reference to each, dropped once the connection is
// garbage. Its methods are safe for concurrent use.
type Breaker struct {
	net.Listener
	mu    sync.Mutex
	until time.Time
	live  map[weak.Pointer[net.TCPConn]]struct{}
}

// NewBreaker wraps ln.
func NewBreaker(ln net.Listener) *Breaker {
	return &Breaker{Listener: ln, live: map[weak.Pointer[net.TCPConn]]struct{}{}}
}

// Accept returns the next connection while up, closing those that come while down.
func (b *Breaker) Accept() (net.Conn, error) {
	for {
		c, err := b.Listener.Accept()
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		down := time.Now().Before(b.until)
		if tc, ok := c.(*net.TCPConn); ok && !down {
			wp := weak.Make(tc)
			b.live[wp] = struct{}{}
			runtime.AddCleanup(tc, b.forget, wp)
		}
		b.mu.Unlock()
		if !down {
			return c, nil
		}
		c.Close()
	}
}

// forget drops a connection that has been collected.
func (b *Breaker) forget(wp weak.Pointer[net.TCPConn]) {
	b.mu.Lock()
	delete(b.live, wp)
	b.mu.Unlock()
}

// Break cuts every live connection and refuses new ones for d.
func (b *Breaker) Break(d time.Duration) {
	b.mu.Lock()
	b.until = time.Now().Add(d)
	var live []*net.TCPConn
	for wp := range b.live {
		if tc := wp.Value(); tc != nil {
			live = append(live, tc)
		}
	}
	b.mu.Unlock()
	for _, c := range live {
		c.Close() // one already closed by the relay stays closed
	}
}

// ParseDown reads a DownCommand line's duration; ok is false for any other line.
func ParseDown(line string) (d time.Duration, ok bool, err error) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), DownCommand+" ")
	if !found {
		return 0, false, nil
	}
	d, err = time.ParseDuration(strings.TrimSpace(rest))
	if err != nil || d <= 0 {
		return 0, true, fmt.Errorf("%s %q: give a positive duration, e.g. %s 2s", DownCommand, rest, DownCommand)
	}
	return d, true, nil
}

// DownLine is the DownCommand line for d.
func DownLine(d time.Duration) string { return DownCommand + " " + d.String() }
