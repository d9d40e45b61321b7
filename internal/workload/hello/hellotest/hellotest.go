// Package hellotest runs the built-in hello server in-process for tests of other packages.
package hellotest

import (
	"context"
	"net"
	"testing"

	"github.com/iobench/iobench/internal/workload/hello"
)

// URL serves hello on a free 127.0.0.1 port until the test ends and returns its URL.
func URL(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hello.Serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("hello server: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/"
}
