package open_test

import (
	"context"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/backend/open"
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
