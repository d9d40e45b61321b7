// Package hellotest runs the built-in hello server in-process for tests of other packages.
package hellotest

import (
	"testing"

	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
	"github.com/iobench/iobench/internal/workload/hello"
)

// URL serves hello on a free 127.0.0.1 port until the test ends and returns its URL.
func URL(tb testing.TB) string {
	tb.Helper()
	return rawhttptest.URL(tb, hello.Serve) + "/"
}
