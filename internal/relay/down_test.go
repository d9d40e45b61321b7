package relay

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/relay/relaytest"
)

// echoes says whether c carries a line there and back within a second.
func echoes(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

// TestBreaker takes a relay down: a live connection is cut, new ones are refused (closed at
// once) while down, and after it one relays again.
func TestBreaker(t *testing.T) {
	r, err := New(Config{Upstream: relaytest.Server(t, relaytest.Echo)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := NewBreaker(ln)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Serve(ctx, b) }()
	defer func() { cancel(); <-done }()
	addr := ln.Addr().String()

	live := dial(t, addr)
	defer live.Close()
	if !echoes(live) {
		t.Fatal("the relay does not echo before going down")
	}
	b.Break(300 * time.Millisecond)
	if echoes(live) {
		t.Error("a live connection still relays after Break")
	}
	during := dial(t, addr)
	defer during.Close()
	if echoes(during) {
		t.Error("a new connection relays while down")
	}
	time.Sleep(350 * time.Millisecond)
	after := dial(t, addr)
	defer after.Close()
	if !echoes(after) {
		t.Error("no relaying after the heal")
	}
}

func TestParseDown(t *testing.T) {
	if d, ok, err := ParseDown(DownLine(2 * time.Second)); !ok || err != nil || d != 2*time.Second {
		t.Errorf("ParseDown(DownLine(2s)) = %v, %v, %v", d, ok, err)
	}
	if _, ok, _ := ParseDown("stats"); ok {
		t.Error("stats read as a down line")
	}
	if _, ok, err := ParseDown("down -1s"); !ok || err == nil {
		t.Error("down -1s accepted")
	}
}

// TestBreakerKeepsTCPConn: the relay gets the accepted *net.TCPConn itself (its half-close and
// receive stamps), and a connection the relay has let go of leaves the breaker's set.
func TestBreakerKeepsTCPConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := NewBreaker(ln)
	defer b.Close()
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	c, err := b.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*net.TCPConn); !ok {
		t.Fatalf("Accept returned a %T, want the *net.TCPConn", c)
	}
	c.Close()
	c = nil
	for range 50 {
		runtime.GC()
		b.mu.Lock()
		n := len(b.live)
		b.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("a connection let go of is still in the breaker's set")
}
