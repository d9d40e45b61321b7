package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/postgres"
	"github.com/iobench/iobench/internal/fail"
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

// withParam returns rawURL with the query parameter kv ("name=value") added.
func withParam(rawURL, kv string) string {
	if strings.Contains(rawURL, "?") {
		return rawURL + "&" + kv
	}
	return rawURL + "?" + kv
}

// eachTxPath runs test once per way of speaking transactions, as a subtest named by the value
// of postgres.TxParam, with the database URL that selects it.
func eachTxPath(t *testing.T, test func(t *testing.T, u string)) {
	for _, path := range []string{"wire", "pgx"} {
		t.Run(path, func(t *testing.T) { test(t, withParam(databaseURL(t), postgres.TxParam+"="+path)) })
	}
}

func TestConformance(t *testing.T) {
	eachTxPath(t, func(t *testing.T, u string) {
		conformance.SQL(t, func(t *testing.T) backend.SQL { return open(t, u, postgres.Options{MaxConns: 8}) })
	})
}

// TestTxParam: the URL's iobench_tx picks the Tx (and never reaches the server, which would
// refuse an unknown setting); a value other than wire or pgx is the user's to fix, on one line.
func TestTxParam(t *testing.T) {
	u := databaseURL(t)
	for param, want := range map[string]string{"": "*postgres.Tx", "wire": "*postgres.Tx", "pgx": "*postgres.BatchTx"} {
		raw := u
		if param != "" {
			raw = withParam(u, postgres.TxParam+"="+param)
		}
		db := open(t, raw, postgres.Options{MaxConns: 1})
		tx := begin(t, db)
		if got := fmt.Sprintf("%T", tx); got != want {
			t.Errorf("%s=%q: Begin gave a %s, want a %s", postgres.TxParam, param, got, want)
		}
		tx.Rollback(t.Context())
		db.Close()
	}
	_, err := postgres.Open(t.Context(), withParam(u, postgres.TxParam+"=libpq"), postgres.Options{})
	if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), "iobench_tx=libpq in the database URL: want wire or pgx") {
		t.Errorf("iobench_tx=libpq: error %v, want bad input naming the values", err)
	}
}

func TestPoolSize(t *testing.T) {
	u := databaseURL(t)
	db := open(t, u, postgres.Options{MaxConns: 7})
	defer db.Close()
	if got := db.MaxConns(); got != 7 {
		t.Errorf("MaxConns with Options{7} = %d", got)
	}
	db2 := open(t, withParam(u, "pool_max_conns=3"), postgres.Options{MaxConns: 7})
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

// TestTxBeginWithFirstStatement covers the Tx that sends BEGIN with its first statement: later
// statements join the transaction, and a transaction whose statement failed cannot commit.
func TestTxBeginWithFirstStatement(t *testing.T) { eachTxPath(t, testTxBeginWithFirstStatement) }

func testTxBeginWithFirstStatement(t *testing.T, u string) {
	db, table := scratchTable(t, u, 2)
	ctx := t.Context()
	insert := "INSERT INTO " + table + " (id) VALUES (?)"

	tx := begin(t, db)
	for _, id := range []int{1, 2} {
		if n, err := tx.Exec(ctx, insert, id); err != nil || n != 1 {
			t.Fatalf("Exec %d = %d, %v", id, n, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}

	tx = begin(t, db)
	if _, err := tx.Exec(ctx, insert, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, insert, 1); err == nil {
		t.Fatal("duplicate key: no error")
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("Commit after a failed statement = %v, want ErrTxCommitRollback", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatalf("Rollback after Commit = %v", err)
	}
	if n, err := db.QueryInt(ctx, "SELECT count(*) FROM "+table); err != nil || n != 2 {
		t.Fatalf("rows = %d, %v; want 2 (the failed transaction's row rolled back)", n, err)
	}

	tx = begin(t, db) // nothing sent: commit and rollback have nothing to end
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("Commit of an empty transaction: %v", err)
	}
	if _, err := tx.Exec(ctx, insert, 4); !errors.Is(err, pgx.ErrTxClosed) {
		t.Fatalf("Exec after Commit = %v, want ErrTxClosed", err)
	}
}

// TestTxCommitExec covers the chain of transactions on one connection: the commit of one and the
// next one's first statement in one round trip, and which of them took effect when either fails.
func TestTxCommitExec(t *testing.T) { eachTxPath(t, testTxCommitExec) }

func testTxCommitExec(t *testing.T, u string) {
	db, table := scratchTable(t, u, 1)
	ctx := t.Context()
	insert := "INSERT INTO " + table + " (id) VALUES (?)"
	count := func(want int64) {
		t.Helper()
		if n, err := db.QueryInt(ctx, "SELECT count(*) FROM "+table); err != nil || n != want {
			t.Fatalf("rows = %d, %v; want %d", n, err, want)
		}
	}
	chain := func(tx backend.Tx, id int) (bool, error) {
		t.Helper()
		committed, n, err := tx.(backend.Chainer).CommitExec(ctx, insert, id)
		if err == nil && n != 1 {
			t.Fatalf("CommitExec(%d) affected %d rows, want 1", id, n)
		}
		return committed, err
	}

	tx := begin(t, db)
	if committed, err := chain(tx, 1); err != nil || !committed { // nothing open yet: it begins
		t.Fatalf("CommitExec on a new Tx = %v, %v", committed, err)
	}
	for _, id := range []int{2, 3} {
		if committed, err := chain(tx, id); err != nil || !committed {
			t.Fatalf("CommitExec(%d) = %v, %v", id, committed, err)
		}
	}
	if err := tx.Rollback(ctx); err != nil { // the last one, 3, is rolled back
		t.Fatal(err)
	}
	count(2)

	tx = begin(t, db) // the next statement fails after the commit went through
	if _, err := tx.Exec(ctx, insert, 4); err != nil {
		t.Fatal(err)
	}
	if committed, err := chain(tx, 1); err == nil || !committed {
		t.Fatalf("CommitExec of a duplicate = %v, %v; want committed and an error", committed, err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxClosed) {
		t.Fatalf("Commit after a failed CommitExec = %v, want ErrTxClosed", err)
	}
	count(3)

	tx = begin(t, db) // the transaction fails before its commit: neither it nor the next counts
	if _, err := tx.Exec(ctx, insert, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, insert, 1); err == nil {
		t.Fatal("duplicate key: no error")
	}
	if committed, err := chain(tx, 6); !errors.Is(err, pgx.ErrTxCommitRollback) || committed {
		t.Fatalf("CommitExec after a failed statement = %v, %v; want not committed, ErrTxCommitRollback", committed, err)
	}
	count(3)
	if _, err := db.Exec(ctx, insert, 6); err != nil { // the pool still works
		t.Fatal(err)
	}
}

// scratchTable opens a pool of conns connections to u and creates a table (id int PRIMARY KEY)
// of its own, both gone when the test ends.
func scratchTable(t *testing.T, u string, conns int) (*postgres.DB, string) {
	t.Helper()
	db := open(t, u, postgres.Options{MaxConns: conns})
	t.Cleanup(func() { db.Close() })
	table := fmt.Sprintf("iobench_tx_%d", time.Now().UnixNano())
	if _, err := db.Exec(t.Context(), "CREATE TABLE "+table+" (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "DROP TABLE "+table) })
	return db, table
}

// begin begins a transaction, rolled back at the test's end if still open (so that a failed
// test gives its connection back before the cleanups that need one).
func begin(t *testing.T, db *postgres.DB) backend.Tx {
	t.Helper()
	tx, err := db.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(context.Background()) })
	return tx
}
