package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/iobench/iobench/internal/backend/postgres"
)

// tableDB opens a one-connection DB to u and makes a table of its own with columns, dropped at
// the test's end.
func tableDB(t *testing.T, u, name, columns string) (*postgres.DB, string) {
	db := open(t, u, postgres.Options{MaxConns: 1})
	t.Cleanup(func() { db.Close() })
	table := fmt.Sprintf("iobench_%s_%d", name, time.Now().UnixNano())
	if _, err := db.Exec(t.Context(), "CREATE TABLE "+table+" ("+columns+")"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "DROP TABLE "+table) })
	return db, table
}

// refused is an argument that neither Tx nor BatchTx can send (pgx takes more types than Tx:
// a float64 for an integer column, truncated, for one).
var refused = struct{}{}

// TestTxArguments covers what a transaction's statements take as arguments (by Tx each sent as
// text): strings, integers, booleans, byte slices and nil (NULL); a type not taken fails before
// anything is sent, and the transaction goes on.
func TestTxArguments(t *testing.T) { eachTxPath(t, testTxArguments) }

func testTxArguments(t *testing.T, u string) {
	ctx := t.Context()
	db, table := tableDB(t, u, "args", "id bigint PRIMARY KEY, s text, b bool, n int")
	insert := "INSERT INTO " + table + " (id, s, b, n) VALUES (?, ?, ?, ?)"

	tx := begin(t, db)
	rows := [][]any{
		{1, "it's ?", true, int32(-7)},
		{int64(1) << 40, []byte("bytes"), false, nil},
	}
	for _, args := range rows {
		if n, err := tx.Exec(ctx, insert, args...); err != nil || n != 1 {
			t.Fatalf("Exec%v = %d, %v", args, n, err)
		}
	}
	if _, err := tx.Exec(ctx, insert, 3, "x", true, refused); err == nil {
		t.Fatal("an argument of neither path's types: no error")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("Commit after a refused argument: %v", err)
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM " + table: 2,
		"SELECT count(*) FROM " + table + " WHERE id = 1 AND s = 'it''s ?' AND b AND n = -7":    1,
		"SELECT count(*) FROM " + table + " WHERE id = 1099511627776 AND s = 'bytes' AND NOT b": 1,
		"SELECT count(*) FROM " + table + " WHERE n IS NULL":                                    1,
	} {
		if n, err := db.QueryInt(ctx, q); err != nil || n != want {
			t.Errorf("%s = %d, %v; want %d", q, n, err, want)
		}
	}
}

// TestTxRefusedFirstStatement: a first statement refused before it was sent leaves BEGIN to the
// next one, so that a rollback still undoes it (not a statement run outside the transaction).
func TestTxRefusedFirstStatement(t *testing.T) { eachTxPath(t, testTxRefusedFirstStatement) }

func testTxRefusedFirstStatement(t *testing.T, u string) {
	ctx := t.Context()
	db, table := tableDB(t, u, "refused", "id bigint PRIMARY KEY")
	insert := "INSERT INTO " + table + " (id) VALUES (?)"
	tx := begin(t, db)
	if _, err := tx.Exec(ctx, insert, refused); err == nil {
		t.Fatal("an argument of neither path's types: no error")
	}
	if n, err := tx.Exec(ctx, insert, 1); err != nil || n != 1 {
		t.Fatalf("Exec after the refused one = %d, %v", n, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := db.QueryInt(ctx, "SELECT count(*) FROM "+table); err != nil || n != 0 {
		t.Fatalf("%d rows after the rollback (%v); want 0: the insert ran outside the transaction", n, err)
	}
}

// TestTxServerErrors covers the server's errors: returned as pgx would (a *pgconn.PgError), and
// a statement that failed to prepare is prepared again next time on the same connection.
func TestTxServerErrors(t *testing.T) { eachTxPath(t, testTxServerErrors) }

func testTxServerErrors(t *testing.T, u string) {
	db := open(t, u, postgres.Options{MaxConns: 1})
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	for range 2 {
		tx := begin(t, db)
		_, err := tx.Exec(ctx, "INSERT INTO iobench_no_such_table (id) VALUES (?)", 1)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42P01" || pgErr.Severity != "ERROR" || pgErr.Message == "" {
			t.Fatalf("Exec on a missing table = %v, want a PgError of code 42P01", err)
		}
		if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
			t.Fatalf("Commit after a failed statement = %v, want ErrTxCommitRollback", err)
		}
	}
	tx := begin(t, db)
	if n, err := tx.Exec(ctx, "SELECT 1 WHERE ? = 'a'", "a"); err != nil || n != 1 {
		t.Fatalf("SELECT after the errors = %d, %v; want 1 row", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestTxConnectionLost covers a transaction whose connection the server ends: its statements
// fail, and the next transaction runs on a new connection.
func TestTxConnectionLost(t *testing.T) { eachTxPath(t, testTxConnectionLost) }

func testTxConnectionLost(t *testing.T, u string) {
	db, table := scratchTable(t, u, 2) // one for the transaction, one to end its backend
	ctx := t.Context()
	insert := "INSERT INTO " + table + " (id) VALUES (?)"
	tx := begin(t, db)
	if _, err := tx.Exec(ctx, insert, 1); err != nil {
		t.Fatal(err)
	}
	n, err := db.QueryInt(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE $1",
		"INSERT INTO "+table+"%")
	if err != nil || n != 1 {
		t.Fatalf("terminating the transaction's backend: %d, %v", n, err)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Fatal("Commit on a terminated connection: no error")
	}
	tx = begin(t, db)
	if _, err := tx.Exec(ctx, insert, 2); err != nil {
		t.Fatalf("Exec on the next connection: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := db.QueryInt(ctx, "SELECT count(*) FROM "+table); err != nil || n != 1 {
		t.Fatalf("rows = %d, %v; want 1 (the terminated transaction's row gone)", n, err)
	}
}
