package open_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/backend/open"

	// Linked by the programs that use them, not by open (see backends.go).
	_ "github.com/iobench/iobench/internal/backend/memcached"
	_ "github.com/iobench/iobench/internal/backend/redis"
	_ "github.com/iobench/iobench/internal/backend/zmq"
)

func TestUnsupportedSchemes(t *testing.T) {
	tests := []struct {
		name string
		fn   func(context.Context, string) error
		url  string
		want string
	}{
		{"broker", brokerErr, "redis://u:s3cret@127.0.0.1:6379",
			`open: unsupported broker URL scheme "redis"; use one of amqp://, amqps://, nats://`},
		{"broker no scheme", brokerErr, "127.0.0.1:5672",
			"open: broker URL has no scheme; use one of amqp://, amqps://, nats://"},
		{"broker empty", brokerErr, "",
			"open: broker URL has no scheme; use one of amqp://, amqps://, nats://"},
		{"database", sqlErr, "mysql://root:s3cret@127.0.0.1/db",
			`open: unsupported database URL scheme "mysql"; use one of postgres://, postgresql://, sqlite://`},
		{"database path", sqlErr, "/var/lib/x.db",
			"open: database URL has no scheme; use one of postgres://, postgresql://, sqlite://"},
		{"kv", kvErr, "amqp://u:s3cret@127.0.0.1:5672",
			`open: unsupported key-value store URL scheme "amqp"; use one of memcached://, redis://, rediss://`},
		{"work queue", queueErr, "ipc:///tmp/zmq.sock",
			`open: unsupported work queue URL scheme "ipc"; use one of redis://, rediss://, zmq+ipc://, zmq+tcp://`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fn(t.Context(), tt.url)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n got %s\nwant %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line without the password", err)
			}
		})
	}
}

func brokerErr(ctx context.Context, url string) error {
	b, err := open.Broker(ctx, url)
	if err == nil {
		b.Close()
	}
	return err
}

func sqlErr(ctx context.Context, url string) error {
	db, err := open.SQL(ctx, url)
	if err == nil {
		db.Close()
	}
	return err
}

func kvErr(ctx context.Context, url string) error {
	kv, err := open.KV(ctx, url)
	if err == nil {
		kv.Close()
	}
	return err
}

func queueErr(ctx context.Context, url string) error {
	q, err := open.WorkQueue(ctx, url, open.QueueName("queue"))
	if err == nil {
		q.Close()
	}
	return err
}

func TestSQLiteBySchemeAndCase(t *testing.T) {
	for _, u := range []string{"sqlite::memory:", "SQLite::memory:", "SQLITE://:memory:"} {
		db, err := open.SQL(t.Context(), u, open.MaxConns(3))
		if err != nil {
			t.Fatalf("open.SQL(%q): %v", u, err)
		}
		if n, err := db.QueryInt(t.Context(), "SELECT 41 + 1"); err != nil || n != 42 {
			t.Fatalf("QueryInt = %d, %v", n, err)
		}
		db.Close()
	}
}

func TestBrokerDispatch(t *testing.T) {
	// Nothing listens on port 1: each scheme reaches its own backend, which says so.
	for scheme, prefix := range map[string]string{"amqp": "amqp: cannot connect", "nats": "nats: cannot connect"} {
		_, err := open.Broker(t.Context(), scheme+"://127.0.0.1:1")
		if err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("open.Broker(%s://...) error = %v, want prefix %q", scheme, err, prefix)
		}
	}
	_, err := open.SQL(t.Context(), "postgresql://u@127.0.0.1:1/db")
	if err == nil || !strings.HasPrefix(err.Error(), "postgres: cannot connect") {
		t.Errorf("open.SQL(postgresql://...) error = %v", err)
	}
	for url, prefix := range map[string]string{"redis://127.0.0.1:1/1": "redis: cannot connect", "memcached://127.0.0.1:1": "memcached: cannot connect"} {
		if err := kvErr(t.Context(), url); err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("open.KV(%s) error = %v, want prefix %q", url, err, prefix)
		}
	}
	for url, prefix := range map[string]string{"redis://127.0.0.1:1/1": "redis: cannot connect", "zmq+tcp://127.0.0.1": "zmq: URL"} {
		if err := queueErr(t.Context(), url); err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("open.WorkQueue(%s) error = %v, want prefix %q", url, err, prefix)
		}
	}
}

func FuzzSchemeErrors(f *testing.F) {
	for _, s := range []string{"x://a:b@c", "", ":", "a:", "1a:", "sqlite:", "SQLITE:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if l := strings.ToLower(s); strings.HasPrefix(l, "sqlite") || strings.HasPrefix(l, "postgres") {
			return // would open something real
		}
		err := sqlErr(context.Background(), s)
		if err == nil {
			t.Fatalf("open.SQL(%q) succeeded", s)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error for %q: %q", s, err)
		}
	})
}

// TestLinksNoStoreClients keeps the KV and WorkQueue clients out of package open, and so out of
// every program that links it for its brokers and databases (see backends.go).
func TestLinksNoStoreClients(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, c := range []string{"github.com/iobench/iobench/internal/backend/redis", "github.com/bradfitz/gomemcache", "github.com/go-zeromq/zmq4"} {
			if strings.HasPrefix(dep, c) {
				t.Errorf("package open links %s", dep)
			}
		}
	}
}
