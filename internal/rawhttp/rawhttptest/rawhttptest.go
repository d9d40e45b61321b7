// Package rawhttptest runs a built-in server in-process for tests.
package rawhttptest

import (
	"context"
	"net"
	"testing"
)

// URL runs serve on a free 127.0.0.1 port until the test ends, then cancels it and fails the
// test if it returned an error; it returns the server's URL without a path ("http://host:port").
func URL(tb testing.TB, serve func(context.Context, net.Listener) error) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("server on %s: %v", ln.Addr(), err)
		}
	})
	return "http://" + ln.Addr().String()
}
