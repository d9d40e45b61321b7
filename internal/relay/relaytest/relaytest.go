// Package relaytest gives tests of the relay and of its users a TCP service on 127.0.0.1 to
// relay to: Server runs any handler, Echo answers with what it read.
package relaytest

import (
	"io"
	"net"
	"testing"
)

// Server serves every connection accepted on a free port of 127.0.0.1 with handle, each in a
// goroutine of its own that closes it after, until the test ends; it returns the host:port.
func Server(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); handle(c) }()
		}
	}()
	return ln.Addr().String()
}

// Echo writes back each read as it came.
func Echo(c net.Conn) { _, _ = io.Copy(c, c) }
