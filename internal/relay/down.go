package relay

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// DownCommand is the line that takes a running `iobench serve proxy` down for a while ("down
// 2s"): it cuts every connection it relays and refuses new ones until then, then heals.
const DownCommand = "down"

// Breaker is a listener a relay serves on that can go down: while down, every connection it
// accepts is closed at once (the client sees it refused or cut), and Break cuts those it
// accepted before. Its methods are safe for concurrent use.
type Breaker struct {
	net.Listener
	mu    sync.Mutex
	until time.Time
	live  map[net.Conn]struct{}
}

// NewBreaker wraps ln.
func NewBreaker(ln net.Listener) *Breaker {
	return &Breaker{Listener: ln, live: map[net.Conn]struct{}{}}
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
		if !down {
			b.live[c] = struct{}{}
		}
		b.mu.Unlock()
		if !down {
			return &tracked{Conn: c, b: b}, nil
		}
		c.Close()
	}
}

// Break cuts every live connection and refuses new ones for d.
func (b *Breaker) Break(d time.Duration) {
	b.mu.Lock()
	b.until = time.Now().Add(d)
	live := b.live
	b.live = map[net.Conn]struct{}{}
	b.mu.Unlock()
	for c := range live {
		c.Close()
	}
}

// tracked is an accepted connection that leaves the breaker's live set when closed.
type tracked struct {
	net.Conn
	b    *Breaker
	once sync.Once
}

func (t *tracked) Close() error {
	t.once.Do(func() {
		t.b.mu.Lock()
		delete(t.b.live, t.Conn)
		t.b.mu.Unlock()
	})
	return t.Conn.Close()
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
