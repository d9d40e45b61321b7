// Package servicetest gives tests the backing services they talk to, started the way users start
// them (package service), once per test binary and shared by its tests.
//
// Use it from TestMain, so that whatever the binary started is stopped at the end:
//
//	func TestMain(m *testing.M) { servicetest.Main(m) }
//
//	func TestPublish(t *testing.T) {
//		url := servicetest.URL(t, "rabbitmq") // amqp://guest:guest@127.0.0.1:P/
//		...
//	}
//
// URL calls service.Ensure once per name: a server named by the environment
// (IOBENCH_AMQP_URL, ...) or recorded by `iobench services up` is used as is; otherwise a private
// one is started for this test binary. `make test` runs `iobench services up` once and exports the
// URLs (eval "$(iobench services env)"), so all packages share one set of servers instead of
// starting their own. A service that cannot be had fails the test with its one-line reason
// (e.g. how to install it); tests are not skipped for a missing server.
package servicetest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/service"
)

type entry struct {
	once sync.Once
	inst *service.Instance
	err  error
}

var (
	mu      sync.Mutex
	entries = map[string]*entry{}
)

// Main runs the tests, then stops every instance this test binary started, and exits with the
// tests' code (1 if they passed but a server did not stop cleanly). Call it from TestMain.
func Main(m *testing.M) { os.Exit(run(m)) }

// MainWithDir is Main for tests that share a directory (e.g. one state directory, so that each
// impl is installed once per test binary): it sets *dir to a new temporary directory that the
// services' and nginx's users may enter, runs the tests and removes the directory.
func MainWithDir(m *testing.M, dir *string) {
	d, err := os.MkdirTemp("", "iobench-test-")
	if err == nil {
		err = os.Chmod(d, 0o711)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "servicetest:", err)
		os.Exit(1)
	}
	*dir = d
	code := run(m)
	os.RemoveAll(d)
	os.Exit(code)
}

func run(m *testing.M) int {
	code := m.Run()
	if err := StopAll(); err != nil {
		fmt.Fprintln(os.Stderr, "servicetest:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// URL returns the URL of a reachable instance of name (see service.Ensure), the same one for
// every test of the binary; if none can be had, it fails the test with the reason.
func URL(t testing.TB, name string) string {
	t.Helper()
	return Instance(t, name).URL
}

// Instance is URL's instance itself, for tests that need its version or processes.
func Instance(t testing.TB, name string) *service.Instance {
	t.Helper()
	mu.Lock()
	e := entries[name]
	if e == nil {
		e = &entry{}
		entries[name] = e
	}
	mu.Unlock()
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		e.inst, e.err = service.Ensure(ctx, name, service.Options{})
		if e.err == nil && e.inst.Owned {
			t.Logf("servicetest: started %s %s (%s) in %v for this test binary; run `iobench services up` to share one",
				name, e.inst.Version, e.inst.Redacted(), e.inst.Startup.Round(time.Millisecond))
		}
	})
	if e.err != nil {
		t.Fatalf("servicetest: %v", e.err)
	}
	return e.inst
}

// StopAll stops the instances this test binary started (Main calls it) and forgets them all.
func StopAll() error {
	mu.Lock()
	defer mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var first error
	for name, e := range entries {
		if e.inst != nil {
			if err := e.inst.Stop(ctx); err != nil && first == nil {
				first = err
			}
		}
		delete(entries, name)
	}
	return first
}
