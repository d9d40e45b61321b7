package amqp

import (
	"net"
	"slices"
	"sync"
	"testing"
)

// countConn counts the writes that reach the socket.
type countConn struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (c *countConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, append([]byte(nil), p...))
	return len(p), nil
}

func TestCorkConn(t *testing.T) {
	sock := &countConn{}
	c := &corkConn{Conn: sock}
	write := func(s string) {
		if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	write("a")
	c.cork()
	write("b")
	c.cork() // a second batch at once: the last uncork writes
	write("c")
	if err := c.uncork(); err != nil {
		t.Fatal(err)
	}
	write("d")
	if err := c.uncork(); err != nil {
		t.Fatal(err)
	}
	c.cork()
	if err := c.uncork(); err != nil { // nothing waited: nothing written
		t.Fatal(err)
	}
	write("e")
	var got []string
	for _, w := range sock.writes {
		got = append(got, string(w))
	}
	if want := []string{"a", "bcd", "e"}; !slices.Equal(got, want) {
		t.Fatalf("writes %q, want %q", got, want)
	}
}
