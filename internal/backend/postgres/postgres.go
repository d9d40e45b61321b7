package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/fail"
)

// Options tunes Open beyond what the URL says.
type Options struct {
	// MaxConns is the pool size when the URL has no pool_max_conns; 0 means 4 x GOMAXPROCS.
	MaxConns int
}

// DB is a pool of PostgreSQL connections. It implements backend.SQL and is safe for
// concurrent use.
type DB struct {
	pool *pgxpool.Pool
	tx   *txConns // the connections of transactions; nil when they go through pgx (BatchTx)
}

var (
	_ backend.SQL     = (*DB)(nil)
	_ backend.Chainer = (*Tx)(nil)
	_ backend.Chainer = (*BatchTx)(nil)
)

// TxParam is the parameter of the database URL that says how transactions are spoken:
// "wire" (the default: Tx, the extended query protocol written by hand) or "pgx" (BatchTx,
// pgx batches). Open takes it out of the URL before pgx reads the rest.
const TxParam = "iobench_tx"

// Open creates a pool for rawURL (postgres:// or postgresql://, any libpq keyword/value string
// also works) and pings the server.
func Open(ctx context.Context, rawURL string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("postgres: invalid database URL: %w", err)
	}
	viaPgx, err := txPath(cfg)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(rawURL, "pool_max_conns") {
		n := opts.MaxConns
		if n <= 0 {
			n = 4 * runtime.GOMAXPROCS(0)
		}
		cfg.MaxConns = int32(min(n, 1<<20))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectErr(rawURL, cfg, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, connectErr(rawURL, cfg, err)
	}
	if viaPgx {
		return &DB{pool: pool}, nil
	}
	return &DB{pool: pool, tx: newTxConns(pool, int(cfg.MaxConns))}, nil
}

// txPath takes TxParam out of cfg (pgx would send it to the server as a setting) and reports
// whether transactions go through pgx.
func txPath(cfg *pgxpool.Config) (viaPgx bool, err error) {
	params := cfg.ConnConfig.RuntimeParams
	v, ok := params[TxParam]
	delete(params, TxParam)
	switch {
	case !ok || v == "wire":
		return false, nil
	case v == "pgx":
		return true, nil
	}
	return false, fail.BadInput("postgres: %s=%s in the database URL: want wire or pgx", TxParam, v)
}

// MaxConns returns the pool size.
func (db *DB) MaxConns() int { return int(db.pool.Config().MaxConns) }

// connectErr turns a failed connect into one line: where, why, what to do.
func connectErr(rawURL string, cfg *pgxpool.Config, err error) error {
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if u, perr := url.Parse(rawURL); perr == nil && u.Scheme != "" {
		where = u.Redacted()
	}
	const start = "start one with 'iobench services up postgres' or pass --database-url"
	why, hint := err.Error(), start
	var pgErr *pgconn.PgError
	var dnsErr *net.DNSError
	var nerr net.Error
	switch {
	case errors.As(err, &pgErr):
		why, hint = pgErr.Message, "fix --database-url"
		switch pgErr.Code {
		case "28P01", "28000":
			why = fmt.Sprintf("authentication failed for user %q (%s)", cfg.ConnConfig.User, pgErr.Message)
			hint = "check the user and password in --database-url"
		case "3D000":
			why = fmt.Sprintf("database %q does not exist", cfg.ConnConfig.Database)
			hint = fmt.Sprintf("create it with 'createdb -h %s -p %d -U %s %s' or pass --database-url",
				cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.User, cfg.ConnConfig.Database)
		case "53300":
			hint = "lower pool_max_conns in --database-url or raise the server's max_connections"
		}
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.As(err, &dnsErr):
		why, hint = fmt.Sprintf("unknown host %q", dnsErr.Name), "check the host in --database-url"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		why = "timed out"
	}
	return &backend.ConnectError{Msg: fmt.Sprintf("postgres: cannot connect to %s: %s; %s", where, why, hint), Err: err}
}

// Exec runs a statement and returns the number of rows it affected.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := db.pool.Exec(ctx, rebindCached(query), args...)
	if err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	return tag.RowsAffected(), nil
}

// QueryInt runs a query returning one row with one integer column; NULL reads as 0 and no
// row is an error.
func (db *DB) QueryInt(ctx context.Context, query string, args ...any) (int64, error) {
	var n *int64
	if err := db.pool.QueryRow(ctx, rebindCached(query), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: query: %w", err)
	}
	if n == nil {
		return 0, nil
	}
	return *n, nil
}

// beginSQL opens every transaction: READ COMMITTED, as pgx's BeginTx would say it.
const beginSQL = "begin isolation level read committed"

// commitSQL ends a transaction, alone or chained to the next by CommitExec.
const commitSQL = "commit"

// Begin takes a connection for a transaction until Commit or Rollback (see txConns). BEGIN
// itself goes out with the transaction's first statement, in one write and one round trip.
func (db *DB) Begin(ctx context.Context) (backend.Tx, error) {
	if db.tx == nil {
		return db.beginBatch(ctx)
	}
	c, err := db.tx.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	return &Tx{conns: db.tx, conn: c}, nil
}

// beginBatch takes a connection from the pgx pool for a BatchTx.
func (db *DB) beginBatch(ctx context.Context) (backend.Tx, error) {
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	return &BatchTx{pool: db.pool, conn: c}, nil
}

// Close closes every connection: the pool's, waiting for those in use to be released, and the
// idle ones of transactions (those in use are closed when their transaction ends).
func (db *DB) Close() error {
	if db.tx != nil {
		db.tx.close()
	}
	db.pool.Close()
	return nil
}

// Tx is a READ COMMITTED transaction on a connection of its own, spoken to by wireConn. It
// implements backend.Tx and is not safe for concurrent use. Statement arguments may be
// strings, integers, booleans, byte slices or nil.
type Tx struct {
	conns *txConns
	conn  *wireConn // nil once the transaction has ended and the connection is back
}

// begun reports whether the server has the transaction open (its last ReadyForQuery said in a
// transaction, or in a failed one): a statement refused before it was sent leaves it unbegun,
// so that the next one still carries BEGIN.
func (t *Tx) begun() bool { return t.conn.status != 'I' }

// Exec runs a statement in the transaction and returns the number of rows it affected; the
// first one carries BEGIN.
func (t *Tx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if t.conn == nil {
		return 0, fmt.Errorf("postgres: exec: %w", pgx.ErrTxClosed)
	}
	if err := t.run(ctx, false, !t.begun(), rebindCached(query), args); err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	return t.conn.res[t.conn.nres-1].rows, nil
}

// run sends, in one exchange, COMMIT when commit is set, BEGIN when begin is, then query with
// args, and reads the results of those that completed into t.conn.res (t.conn.nres of them).
func (t *Tx) run(ctx context.Context, commit, begin bool, query string, args []any) error {
	c := t.conn
	if commit {
		_ = c.queue(commitSQL, nil)
	}
	if begin {
		_ = c.queue(beginSQL, nil)
	}
	if err := c.queue(query, args); err != nil {
		return err
	}
	return c.exchange(ctx)
}

// Commit commits the transaction and gives its connection back. A transaction whose statement
// failed is rolled back by the server, and Commit says so with pgx.ErrTxCommitRollback.
func (t *Tx) Commit(ctx context.Context) error {
	if t.conn == nil {
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxClosed)
	}
	defer t.release()
	if !t.begun() {
		return nil
	}
	err := t.run(ctx, false, false, commitSQL, nil)
	switch {
	case err != nil:
		return fmt.Errorf("postgres: commit: %w", err)
	case t.conn.res[0].verb != "COMMIT":
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxCommitRollback)
	}
	return nil
}

// CommitExec commits the transaction and begins the next on the same connection with query,
// all in one write and one round trip (see backend.Chainer). A transaction that could not
// commit is reported with pgx.ErrTxCommitRollback, as by Commit.
func (t *Tx) CommitExec(ctx context.Context, query string, args ...any) (committed bool, rows int64, err error) {
	if t.conn == nil {
		return false, 0, fmt.Errorf("postgres: commit: %w", pgx.ErrTxClosed)
	}
	if !t.begun() { // nothing to commit yet
		rows, err = t.Exec(ctx, query, args...)
		if err != nil {
			t.release()
		}
		return true, rows, err
	}
	err = t.run(ctx, true, true, rebindCached(query), args)
	done, res := t.conn.nres, &t.conn.res
	committed = done > 0 && res[0].verb == "COMMIT"
	if err = chainErr(done, committed, err); err != nil {
		t.release() // a connection left in a transaction is closed
		return committed, 0, err
	}
	return true, res[2].rows, nil
}

// Rollback aborts the transaction; after Commit or a previous Rollback it returns nil.
func (t *Tx) Rollback(ctx context.Context) error {
	if t.conn == nil {
		return nil
	}
	defer t.release()
	if !t.begun() {
		return nil
	}
	if err := t.run(ctx, false, false, "rollback", nil); err != nil {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}

// release gives the connection back, which closes it unless it is idle, outside any
// transaction (after a failed COMMIT or ROLLBACK, for instance).
func (t *Tx) release() {
	t.conns.put(t.conn)
	t.conn = nil
}
