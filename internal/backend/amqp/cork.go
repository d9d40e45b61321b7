package amqp

import (
	"net"
	"sync"
)

// corkConn is a Broker's socket. While it is corked, what amqp091 writes to it waits in a buffer
// and goes out when the last cork is removed, in one write(2): a batch of publishes (amqp091
// writes each with its own) costs one system call. Whatever else is written on the connection
// meanwhile (acks, other channels) joins the buffer, and so goes out later than its call returns.
type corkConn struct {
	net.Conn
	mu     sync.Mutex // held while writing, so that buffered and direct writes keep their order
	corked int
	buf    []byte
}

func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corked > 0 {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// cork makes writes wait until the matching uncork.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked++
	c.mu.Unlock()
}

// uncork removes a cork; the last one writes what waited.
func (c *corkConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corked--; c.corked > 0 || len(c.buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}
