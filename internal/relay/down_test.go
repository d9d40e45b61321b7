package relay

import (
	"bufio"
	"context"
	"net"
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
