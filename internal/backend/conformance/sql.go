package conformance

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/iobench/iobench/internal/backend"
)

// SQL runs the database suite. open must return an open database for the subtest it is given;
// the suite closes it. Each subtest creates its own table shaped like the bus's customers table
// and drops it afterwards.
func SQL(t *testing.T, open func(t *testing.T) backend.SQL) {
	cases := []struct {
		name string
		run  func(t *testing.T, db backend.SQL, table string)
	}{
		{"InsertAndCount", insertAndCount},
		{"IdempotentInsert", idempotentInsert},
		{"RowsAffected", rowsAffected},
		{"PlaceholderInsideStringLiteral", placeholderInsideStringLiteral},
		{"QueryIntEdgeCases", queryIntEdgeCases},
		{"RollbackLeavesNoRow", rollbackLeavesNoRow},
		{"CommitKeepsRow", commitKeepsRow},
		{"FailedStatementThenRollback", failedStatementThenRollback},
		{"ConcurrentTransactions", concurrentTransactions},
		{"TransactionRate", transactionRate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t)
			t.Cleanup(func() {
				if err := db.Close(); err != nil {
					t.Errorf("SQL.Close: %v", err)
				}
			})
			table := uniqueName("iobench_conf_")
			exec(t, db, fmt.Sprintf("CREATE TABLE %s (id uuid PRIMARY KEY, name varchar NOT NULL, email varchar NOT NULL)", table))
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
					t.Errorf("drop table: %v", err)
				}
			})
			tc.run(t, db, table)
		})
	}
}

func exec(t *testing.T, db backend.SQL, query string, args ...any) int64 {
	t.Helper()
	n, err := db.Exec(testContext(t), query, args...)
	if err != nil {
		t.Fatalf("Exec(%q): %v", query, err)
	}
	return n
}

func queryInt(t *testing.T, db backend.SQL, query string, args ...any) int64 {
	t.Helper()
	n, err := db.QueryInt(testContext(t), query, args...)
	if err != nil {
		t.Fatalf("QueryInt(%q): %v", query, err)
	}
	return n
}

func count(t *testing.T, db backend.SQL, table string) int64 {
	t.Helper()
	return queryInt(t, db, "SELECT count(*) FROM "+table)
}

func insertSQL(table string) string {
	return "INSERT INTO " + table + " (id, name, email) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING"
}

func insertAndCount(t *testing.T, db backend.SQL, table string) {
	id := uuid.NewString()
	if n := exec(t, db, insertSQL(table), id, "name_0", "name@qwerty.root"); n != 1 {
		t.Fatalf("insert affected %d rows, want 1", n)
	}
	if n := count(t, db, table); n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
	q := "SELECT count(*) FROM " + table + " WHERE id = ? AND name = ? AND email = ?"
	if n := queryInt(t, db, q, id, "name_0", "name@qwerty.root"); n != 1 {
		t.Fatalf("count with 3 arguments = %d, want 1", n)
	}
}

func idempotentInsert(t *testing.T, db backend.SQL, table string) {
	id := uuid.NewString()
	if n := exec(t, db, insertSQL(table), id, "name_0", "a@b"); n != 1 {
		t.Fatalf("first insert affected %d rows, want 1", n)
	}
	if n := exec(t, db, insertSQL(table), id, "name_0", "a@b"); n != 0 {
		t.Fatalf("repeated insert affected %d rows, want 0 (ON CONFLICT DO NOTHING)", n)
	}
	if n := count(t, db, table); n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
}

func rowsAffected(t *testing.T, db backend.SQL, table string) {
	for i := range 3 {
		exec(t, db, insertSQL(table), uuid.NewString(), fmt.Sprintf("name_%d", i), "old@x")
	}
	if n := exec(t, db, "UPDATE "+table+" SET email = ? WHERE email = ?", "new@x", "old@x"); n != 3 {
		t.Fatalf("update affected %d rows, want 3", n)
	}
	if n := exec(t, db, "DELETE FROM "+table+" WHERE name = ?", "name_1"); n != 1 {
		t.Fatalf("delete affected %d rows, want 1", n)
	}
}

func placeholderInsideStringLiteral(t *testing.T, db backend.SQL, table string) {
	id := uuid.NewString()
	exec(t, db, "INSERT INTO "+table+" (id, name, email) VALUES (?, 'what?', ?)", id, "a@b")
	q := "SELECT count(*) FROM " + table + " WHERE name = 'what?' AND id = ? -- a comment?\n AND email = ?"
	if n := queryInt(t, db, q, id, "a@b"); n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
}

func queryIntEdgeCases(t *testing.T, db backend.SQL, table string) {
	if n := queryInt(t, db, "SELECT sum(1) FROM "+table+" WHERE 1 = 0"); n != 0 {
		t.Fatalf("NULL read as %d, want 0", n)
	}
	if _, err := db.QueryInt(testContext(t), "SELECT 1 FROM "+table+" WHERE 1 = 0"); err == nil {
		t.Fatal("QueryInt of no row: no error")
	}
	if _, err := db.Exec(testContext(t), "SELECT * FROM no_such_table_at_all"); err == nil {
		t.Fatal("Exec of a bad statement: no error")
	}
}

func rollbackLeavesNoRow(t *testing.T, db backend.SQL, table string) {
	ctx := testContext(t)
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	if n, err := tx.Exec(ctx, insertSQL(table), uuid.NewString(), "n", "e"); err != nil || n != 1 {
		t.Fatalf("Tx.Exec = %d, %v; want 1 row", n, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatalf("second Rollback: %v", err)
	}
	if n := count(t, db, table); n != 0 {
		t.Fatalf("count after rollback = %d, want 0", n)
	}
}

func commitKeepsRow(t *testing.T, db backend.SQL, table string) {
	ctx := testContext(t)
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	if _, err := tx.Exec(ctx, insertSQL(table), uuid.NewString(), "n", "e"); err != nil {
		t.Fatalf("Tx.Exec: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatalf("Rollback after Commit = %v, want nil", err)
	}
	if n := count(t, db, table); n != 1 {
		t.Fatalf("count after commit = %d, want 1", n)
	}
}

func failedStatementThenRollback(t *testing.T, db backend.SQL, table string) {
	id := uuid.NewString()
	exec(t, db, insertSQL(table), id, "n", "e")
	ctx := testContext(t)
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO "+table+" (id, name, email) VALUES (?, ?, ?)", id, "n", "e"); err == nil {
		t.Fatal("duplicate key insert: no error")
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	// The connection went back to the pool in a usable state.
	if n := exec(t, db, insertSQL(table), uuid.NewString(), "n", "e"); n != 1 {
		t.Fatalf("insert after rollback affected %d rows", n)
	}
	if n := count(t, db, table); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
}

func concurrentTransactions(t *testing.T, db backend.SQL, table string) {
	const workers = 20
	ctx := testContext(t)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := range workers {
		wg.Go(func() {
			tx, err := db.Begin(ctx)
			if err != nil {
				errs <- fmt.Errorf("Begin: %w", err)
				return
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, insertSQL(table), uuid.NewString(), fmt.Sprintf("name_%d", i), "e"); err != nil {
				errs <- fmt.Errorf("Exec: %w", err)
				return
			}
			if err := tx.Commit(ctx); err != nil {
				errs <- fmt.Errorf("Commit: %w", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := count(t, db, table); n != workers {
		t.Fatalf("count = %d, want %d", n, workers)
	}
}

// transactionRate logs how many bus-shaped transactions (BEGIN; INSERT; COMMIT) per second the
// backend completes from a few goroutines: a smoke figure, not a benchmark.
func transactionRate(t *testing.T, db backend.SQL, table string) {
	const workers, each = 8, 100
	ctx := testContext(t)
	q := insertSQL(table)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				tx, err := db.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				if _, err := tx.Exec(ctx, q, uuid.NewString(), fmt.Sprintf("name_%d_%d", w, i), "name@qwerty.root"); err != nil {
					_ = tx.Rollback(ctx)
					errs <- err
					return
				}
				if err := tx.Commit(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if n := count(t, db, table); n != workers*each {
		t.Fatalf("count = %d, want %d", n, workers*each)
	}
	t.Logf("%d transactions (BEGIN; INSERT; COMMIT) from %d goroutines: %.0f tx/s", workers*each, workers, workers*each/elapsed.Seconds())
}
