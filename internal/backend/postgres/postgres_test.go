package postgres_test

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/postgres"
	"github.com/iobench/iobench/internal/service/servicetest"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

// databaseURL returns the PostgreSQL the tests use ($IOBENCH_DATABASE_URL, the one `iobench
// services up` started, or a private one).
func databaseURL(t *testing.T) string {
	t.Helper()
	return servicetest.URL(t, "postgres")
}

func open(t *testing.T, rawURL string, opts postgres.Options) *postgres.DB {
	t.Helper()
	return conformance.Open(t, func(ctx context.Context) (*postgres.DB, error) { return postgres.Open(ctx, rawURL, opts) })
}

func TestConformance(t *testing.T) {
	u := databaseURL(t)
	conformance.SQL(t, func(t *testing.T) backend.SQL { return open(t, u, postgres.Options{MaxConns: 8}) })
}

func TestPoolSize(t *testing.T) {
	u := databaseURL(t)
	db := open(t, u, postgres.Options{MaxConns: 7})
	defer db.Close()
	if got := db.MaxConns(); got != 7 {
		t.Errorf("MaxConns with Options{7} = %d", got)
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	db2 := open(t, u+sep+"pool_max_conns=3", postgres.Options{MaxConns: 7})
	defer db2.Close()
	if got := db2.MaxConns(); got != 3 {
		t.Errorf("MaxConns with pool_max_conns=3 in the URL = %d, want the URL to win", got)
	}
}

func TestConnectRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = postgres.Open(t.Context(), "postgres://bench:s3cret@"+addr+"/bench", postgres.Options{})
	want := "postgres: cannot connect to postgres://bench:xxxxx@" + addr + "/bench: connection refused; start one with 'iobench services up postgres' or pass --database-url"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got %v\nwant %s", err, want)
	}
}

func TestMissingDatabase(t *testing.T) {
	u, err := url.Parse(databaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/iobench_no_such_db"
	_, err = postgres.Open(t.Context(), u.String(), postgres.Options{})
	if err == nil || !strings.Contains(err.Error(), `database "iobench_no_such_db" does not exist; create it with 'createdb`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error = %v, want one line saying the database does not exist, with a hint", err)
	}
}

func TestInvalidURLHidesPassword(t *testing.T) {
	_, err := postgres.Open(t.Context(), "postgres://u:s3cret@127.0.0.1:notaport/db", postgres.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error %v: want an error without the password", err)
	}
}
