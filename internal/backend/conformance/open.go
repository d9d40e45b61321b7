package conformance

import (
	"context"
	"testing"
	"time"
)

// Open calls a backend's constructor with a 10-second deadline and fails the test on error, so
// each backend's tests open connections in one line.
func Open[T any](t testing.TB, open func(context.Context) (T, error)) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	v, err := open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
