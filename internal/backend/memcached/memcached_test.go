package memcached_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/memcached"
	"github.com/iobench/iobench/internal/service/servicetest"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

// serverURL returns the Memcached the tests use ($IOBENCH_MEMCACHED_ADDR, the one `iobench
// services up` started, or a private one) as memcached://host:port.
func serverURL(t *testing.T) string {
	t.Helper()
	return servicetest.URL(t, "memcached")
}

func open(t *testing.T, url string) *memcached.Client {
	t.Helper()
	return conformance.Open(t, func(ctx context.Context) (*memcached.Client, error) {
		return memcached.Open(ctx, url, memcached.Options{MaxConns: 8})
	})
}

func TestConformance(t *testing.T) {
	url := serverURL(t)
	conformance.KV(t, func(t *testing.T) backend.KV { return open(t, url) })
}

func TestOpenErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	tests := []struct{ url, want string }{
		{"memcached://" + refused,
			"memcached: cannot connect to " + refused + ": connection refused; start one with 'iobench services up memcached' or pass --memcached-addr"},
		{"memcached://u:s3cret@127.0.0.1:11211", "want memcached://host:port and nothing else"},
		{"memcached://127.0.0.1:11211/1", "want memcached://host:port and nothing else"},
		{"redis://127.0.0.1:6379", "must start with memcached://"},
	}
	for _, tt := range tests {
		_, err := memcached.Open(t.Context(), tt.url, memcached.Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%s) error\n got %v\nwant one line containing %q, without the password", tt.url, err, tt.want)
		}
	}
}

func TestMalformedKey(t *testing.T) {
	c := open(t, serverURL(t))
	defer c.Close()
	_, err := c.Incr(t.Context(), "two words")
	if err == nil || !strings.Contains(err.Error(), "with spaces or control characters; choose another") {
		t.Fatalf("Incr of a key with a space: %v", err)
	}
}

// TestPaddedCounter reads a counter memcached padded with spaces, as it may after a decr made
// the number shorter.
func TestPaddedCounter(t *testing.T) {
	url := serverURL(t)
	key := "iobench-test-padded"
	raw := memcache.New(strings.TrimPrefix(url, "memcached://"))
	defer raw.Close()
	if err := raw.Set(&memcache.Item{Key: key, Value: []byte("12  ")}); err != nil {
		t.Fatal(err)
	}
	defer raw.Delete(key)
	c := open(t, url)
	defer c.Close()
	if n, ok, err := c.Get(t.Context(), key); err != nil || !ok || n != 12 {
		t.Fatalf("Get of \"12  \" = %d, %v, %v; want 12", n, ok, err)
	}
	if n, err := c.Incr(t.Context(), key); err != nil || n != 13 {
		t.Fatalf("Incr of \"12  \" = %d, %v; want 13", n, err)
	}
}
