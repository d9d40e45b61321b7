package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
)

// timeout bounds every wait of the suite.
const timeout = 15 * time.Second

// uniqueName returns prefix followed by random hex, valid as a queue, subject, stream or table
// name.
func uniqueName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// testContext returns a context that ends with the test or after timeout.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it returns true, failing the test with cond's last message after
// timeout.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ok, msg := cond()
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("%s: still not true after %s: %s", what, timeout, msg)
		}
	}
}

// recv returns the next delivery of c, failing the test if none comes within timeout or the
// channel closes.
func recv(t *testing.T, c backend.Consumer) backend.Delivery {
	t.Helper()
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	select {
	case d, ok := <-c.Deliveries():
		if !ok {
			t.Fatalf("Deliveries closed early (Err: %v)", backend.ConsumerErr(c))
		}
		return d
	case <-tm.C:
		t.Fatalf("no delivery within %s", timeout)
	}
	return nil
}

// closed waits until c's Deliveries channel closes, discarding what it still yields.
func closed(t *testing.T, c backend.Consumer) {
	t.Helper()
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	for {
		select {
		case _, ok := <-c.Deliveries():
			if !ok {
				return
			}
		case <-tm.C:
			t.Fatalf("Deliveries not closed within %s", timeout)
		}
	}
}
