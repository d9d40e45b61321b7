package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BatchTx is a READ COMMITTED transaction spoken by pgx alone (iobench_tx=pgx in the URL): a
// connection of the pgx pool held until the transaction ends, and its round trips made as the
// wire path's Tx makes them, with pgx batches (one write, one Sync): BEGIN and the first
// statement, then each statement alone, then COMMIT; or, through CommitExec, COMMIT, BEGIN and
// the next transaction's first statement. pgx prepares a statement the first time a connection
// sees it, in a round trip of its own. It implements backend.Tx and backend.Chainer, and is not
// safe for concurrent use.
type BatchTx struct {
	pool *pgxpool.Pool
	conn *pgxpool.Conn // nil once the transaction has ended and the connection is back
	// failed: a statement failed on the server while the transaction was not begun yet (pgx
	// prepares before it sends BEGIN), so that the transaction must not commit, as after a
	// statement that failed inside it.
	failed bool
}

// begun reports whether the server has the transaction open (the connection's last
// ReadyForQuery said in a transaction, or in a failed one).
func (t *BatchTx) begun() bool { return t.conn.Conn().PgConn().TxStatus() != 'I' }

// errFailedEarlier is what a BatchTx's statements return once one failed on the server before
// the transaction had begun: the server says the same of a failed transaction.
var errFailedEarlier = errors.New("the transaction failed in an earlier statement")

// Exec runs a statement in the transaction and returns the number of rows it affected; the
// first one carries BEGIN.
func (t *BatchTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if t.conn == nil {
		return 0, fmt.Errorf("postgres: exec: %w", pgx.ErrTxClosed)
	}
	if t.failed {
		return 0, fmt.Errorf("postgres: exec: %w", errFailedEarlier)
	}
	query = rebindCached(query)
	if t.begun() {
		tag, err := t.conn.Exec(ctx, query, args...)
		if err != nil {
			return 0, fmt.Errorf("postgres: exec: %w", err)
		}
		return tag.RowsAffected(), nil
	}
	tags, _, err := t.batch(ctx, false, query, args)
	if err != nil {
		if t.conn.Conn().IsClosed() {
			t.redial(ctx)
		}
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	return tags[1].RowsAffected(), nil
}

// redial gives back the connection that pgx closed under a transaction not yet begun, which
// lost nothing with it, and takes another, so that the transaction goes on (pgx closes the
// connection when it cannot encode an argument of the first statement, BEGIN being queued);
// when none can be had, the transaction ends.
func (t *BatchTx) redial(ctx context.Context) {
	t.release()
	if c, err := t.pool.Acquire(ctx); err == nil {
		t.conn = c
	}
}

// batch sends COMMIT when commit is set, then BEGIN and query with args, as one pgx batch, and
// reads their command tags in order: those that completed (done of them) and the first error.
func (t *BatchTx) batch(ctx context.Context, commit bool, query string, args []any) (tags [3]pgconn.CommandTag, done int, err error) {
	var b pgx.Batch
	if commit {
		b.Queue(commitSQL)
	}
	b.Queue(beginSQL)
	b.Queue(query, args...)
	br := t.conn.SendBatch(ctx, &b)
	for done < b.Len() {
		tag, err := br.Exec()
		if err != nil {
			break
		}
		tags[done] = tag
		done++
	}
	err = br.Close()
	var pgErr *pgconn.PgError
	if err != nil && done == 0 && !t.begun() && errors.As(err, &pgErr) {
		t.failed = true // the server refused a statement as pgx prepared it
	}
	return tags, done, err
}

// Commit commits the transaction and gives its connection back. A transaction whose statement
// failed is rolled back by the server, and Commit says so with pgx.ErrTxCommitRollback.
func (t *BatchTx) Commit(ctx context.Context) error {
	if t.conn == nil {
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxClosed)
	}
	defer t.release()
	switch {
	case t.failed:
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxCommitRollback)
	case !t.begun():
		return nil
	}
	tag, err := t.conn.Exec(ctx, commitSQL)
	switch {
	case err != nil:
		return fmt.Errorf("postgres: commit: %w", err)
	case tag.String() != "COMMIT":
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxCommitRollback)
	}
	return nil
}

// CommitExec commits the transaction and begins the next on the same connection with query,
// all in one batch and one round trip (see backend.Chainer). A transaction that could not
// commit is reported with pgx.ErrTxCommitRollback, as by Commit.
func (t *BatchTx) CommitExec(ctx context.Context, query string, args ...any) (committed bool, rows int64, err error) {
	if t.conn == nil {
		return false, 0, fmt.Errorf("postgres: commit: %w", pgx.ErrTxClosed)
	}
	if t.failed || t.conn.Conn().PgConn().TxStatus() == 'E' {
		// Nothing to chain: the transaction can only roll back, and pgx would fail to prepare
		// the next statement in it (it prepares again what failed before).
		return false, 0, t.Commit(ctx)
	}
	if !t.begun() { // nothing to commit yet
		rows, err = t.Exec(ctx, query, args...)
		if err != nil {
			t.release()
		}
		return true, rows, err
	}
	tags, done, err := t.batch(ctx, true, rebindCached(query), args)
	committed = done > 0 && tags[0].String() == "COMMIT"
	err = chainErr(done, committed, err)
	if err != nil {
		t.release() // the pool closes a connection left in a transaction
		return committed, 0, err
	}
	return true, tags[2].RowsAffected(), nil
}

// chainErr words the error of a COMMIT, BEGIN, statement chain of which done completed: a COMMIT
// that rolled back, a failed COMMIT, or a failed BEGIN or statement after the commit.
func chainErr(done int, committed bool, err error) error {
	switch {
	case done > 0 && !committed:
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxCommitRollback)
	case err != nil && !committed:
		return fmt.Errorf("postgres: commit: %w", err)
	case err != nil:
		return fmt.Errorf("postgres: exec: %w", err)
	}
	return nil
}

// Rollback aborts the transaction; after Commit or a previous Rollback it returns nil.
func (t *BatchTx) Rollback(ctx context.Context) error {
	if t.conn == nil {
		return nil
	}
	defer t.release()
	if !t.begun() {
		return nil
	}
	if _, err := t.conn.Exec(ctx, "rollback"); err != nil {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}

// release gives the connection back to the pool, which closes it unless it is idle, outside any
// transaction; it does nothing once the connection is back.
func (t *BatchTx) release() {
	if t.conn == nil {
		return
	}
	t.conn.Release()
	t.conn = nil
}
