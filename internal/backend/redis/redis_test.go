package redis_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/backend/redis"
	"github.com/iobench/iobench/internal/service/servicetest"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

// serverURL returns the Redis the tests use ($IOBENCH_REDIS_URL, the one `iobench services up`
// started, or a private one), with database db.
func serverURL(t *testing.T, db string) string {
	t.Helper()
	return strings.TrimSuffix(servicetest.URL(t, "redis"), "/") + "/" + db
}

func openClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	return conformance.Open(t, func(ctx context.Context) (*redis.Client, error) { return redis.Open(ctx, url, redis.Options{}) })
}

func TestConformanceKV(t *testing.T) {
	url := serverURL(t, "1")
	conformance.KV(t, func(t *testing.T) backend.KV { return openClient(t, url) })
}

func TestConformanceWorkQueue(t *testing.T) {
	url := serverURL(t, "1")
	conformance.WorkQueue(t, func(t *testing.T, name string) backend.WorkQueue {
		t.Cleanup(func() { deleteKey(t, url, name) }) // a failed test may leave messages behind
		return conformance.Open(t, func(ctx context.Context) (*redis.Queue, error) {
			return redis.OpenQueue(ctx, url, name, redis.Options{MaxConns: 8})
		})
	})
}

// TestDatabaseFromPath counts one key in databases 1 and 2 and finds them apart.
func TestDatabaseFromPath(t *testing.T) {
	one, two := openClient(t, serverURL(t, "1")), openClient(t, serverURL(t, "2"))
	defer one.Close()
	defer two.Close()
	ctx := t.Context()
	const key = "iobench-test-db-from-path"
	defer one.Del(context.Background(), key)
	defer two.Del(context.Background(), key)
	for _, c := range []*redis.Client{one, one, two} {
		if _, err := c.Incr(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	if n, _, err := one.Get(ctx, key); err != nil || n != 2 {
		t.Fatalf("database 1: %d, %v; want 2", n, err)
	}
	if n, _, err := two.Get(ctx, key); err != nil || n != 1 {
		t.Fatalf("database 2: %d, %v; want 1", n, err)
	}
}

func TestOpenErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	tests := []struct{ url, want string }{
		{"redis://u:s3cret@" + refused + "/1",
			"redis: cannot connect to redis://u:xxxxx@" + refused + "/1: connection refused; start one with 'iobench services up redis' or pass --redis-url"},
		{serverURL(t, "99"), "database 99 is out of range; use a database number below the server's 'databases' setting (16 by default)"},
		{serverURL(t, "one"), `invalid database number: "one"; write redis://host:port/db`},
		{"redis://u:s3cret@127.0.0.1:notaport/1", "redis: invalid URL (not shown, it may hold a password)"},
		{"memcached://127.0.0.1:1", "must start with redis:// or rediss://"},
	}
	for _, tt := range tests {
		_, err := redis.Open(t.Context(), tt.url, redis.Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%s) error\n got %v\nwant one line containing %q, without the password", tt.url, err, tt.want)
		}
	}
	if _, err := redis.OpenQueue(t.Context(), serverURL(t, "1"), "", redis.Options{}); err == nil || !strings.Contains(err.Error(), "a queue needs a name") {
		t.Errorf("OpenQueue without a name: %v", err)
	}
}

// deleteKey deletes key from the database at url.
func deleteKey(t *testing.T, url, key string) {
	c, err := redis.Open(context.Background(), url, redis.Options{})
	if err == nil {
		defer c.Close()
		err = c.Del(context.Background(), key)
	}
	if err != nil {
		t.Error(err)
	}
}

// TestOpenByURL opens the KV and a work queue through package open, by URL and queue name.
func TestOpenByURL(t *testing.T) {
	url := serverURL(t, "1")
	ctx := t.Context()
	kv, err := open.KV(ctx, url, open.MaxConns(2))
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	key := "iobench-test-open-by-url"
	defer deleteKey(t, url, key)
	if n, err := kv.Incr(ctx, key); err != nil || n != 1 {
		t.Fatalf("Incr = %d, %v", n, err)
	}
	q, err := open.WorkQueue(ctx, url, open.QueueName(key+"-queue"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	defer deleteKey(t, url, key+"-queue")
	if err := q.Push(ctx, []byte("visit")); err != nil {
		t.Fatal(err)
	}
	if body, err := q.Pop(ctx, time.Second); err != nil || string(body) != "visit" {
		t.Fatalf("Pop = %q, %v", body, err)
	}
}
