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
}

var (
	_ backend.SQL     = (*DB)(nil)
	_ backend.Chainer = (*Tx)(nil)
)

// Open creates a pool for rawURL (postgres:// or postgresql://, any libpq keyword/value string
// also works) and pings the server.
func Open(ctx context.Context, rawURL string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("postgres: invalid database URL: %w", err)
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
	return &DB{pool: pool}, nil
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

// Begin takes a connection from the pool until Commit or Rollback. BEGIN itself goes out with
// the transaction's first statement, in one write and one round trip (a pipeline).
func (db *DB) Begin(ctx context.Context) (backend.Tx, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	return &Tx{conn: conn}, nil
}

// Close closes every connection of the pool, waiting for those in use to be released.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Tx is a READ COMMITTED transaction on a connection of its own. It implements backend.Tx and
// is not safe for concurrent use.
type Tx struct {
	conn  *pgxpool.Conn // nil once the transaction has ended and the connection is back
	begun bool          // BEGIN was sent
}

// Exec runs a statement in the transaction and returns the number of rows it affected; the
// first one carries BEGIN.
func (t *Tx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if t.conn == nil {
		return 0, fmt.Errorf("postgres: exec: %w", pgx.ErrTxClosed)
	}
	query = rebindCached(query)
	if !t.begun {
		t.begun = true
		return t.beginWith(ctx, query, args)
	}
	tag, err := t.conn.Exec(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	return tag.RowsAffected(), nil
}

// beginWith sends BEGIN and the first statement in one write and reads both results.
func (t *Tx) beginWith(ctx context.Context, query string, args []any) (int64, error) {
	tags, _, err := t.pipeline(ctx, false, query, args)
	if err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	return tags[2].RowsAffected(), nil
}

// commitSQL ends a transaction that CommitExec chains to the next.
const commitSQL = "commit"

// pipeline sends COMMIT when commit is set, then BEGIN and query with args, in one write (a
// batch, each statement prepared once per connection), and reads their results: the command
// tags of those that completed (tags[0] is COMMIT's, tags[1] BEGIN's, tags[2] the statement's),
// how many did, and the first error. It goes to pgconn directly: pgx's own batches cost the
// bus consumer a tenth of its CPU in bookkeeping.
func (t *Tx) pipeline(ctx context.Context, commit bool, query string, args []any) (tags [3]pgconn.CommandTag, done int, err error) {
	c := t.conn.Conn()
	var b pgconn.Batch
	first := 1
	if commit {
		first = 0
		sd, err := c.Prepare(ctx, commitSQL, commitSQL)
		if err != nil {
			return tags, 0, err
		}
		b.ExecStatement(sd, nil, nil, nil)
	}
	begin, err := c.Prepare(ctx, beginSQL, beginSQL)
	if err != nil {
		return tags, 0, err
	}
	sd, err := c.Prepare(ctx, query, query)
	if err != nil {
		return tags, 0, err
	}
	b.ExecStatement(begin, nil, nil, nil)
	if err := queue(&b, c, sd, args); err != nil {
		return tags, 0, err
	}
	mrr := c.PgConn().ExecBatch(ctx, &b)
	done = first
	for mrr.NextResult() {
		tag, err := mrr.ResultReader().Close()
		if err == nil && done < len(tags) {
			tags[done] = tag
			done++
		}
	}
	return tags, done - first, mrr.Close()
}

// queue adds the statement sd with args to b: strings as text as they are, anything else
// encoded by pgx.
func queue(b *pgconn.Batch, c *pgx.Conn, sd *pgconn.StatementDescription, args []any) error {
	params := make([][]byte, 0, len(args))
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			var eqb pgx.ExtendedQueryBuilder
			if err := eqb.Build(c.TypeMap(), sd, args); err != nil {
				return err
			}
			b.ExecStatement(sd, eqb.ParamValues, eqb.ParamFormats, eqb.ResultFormats)
			return nil
		}
		params = append(params, []byte(s))
	}
	b.ExecStatement(sd, params, nil, nil)
	return nil
}

// lastResult reads every result of mrr and returns the last command tag, or the first error.
func lastResult(mrr *pgconn.MultiResultReader) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	for mrr.NextResult() {
		tag, _ = mrr.ResultReader().Close()
	}
	return tag, mrr.Close()
}

// Commit commits the transaction and returns its connection to the pool. A transaction whose
// statement failed is rolled back by the server, and Commit says so with pgx.ErrTxCommitRollback.
func (t *Tx) Commit(ctx context.Context) error {
	if t.conn == nil {
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxClosed)
	}
	defer t.release()
	if !t.begun {
		return nil
	}
	tag, err := lastResult(t.conn.Conn().PgConn().Exec(ctx, "commit"))
	switch {
	case err != nil:
		return fmt.Errorf("postgres: commit: %w", err)
	case tag.String() == "ROLLBACK":
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
	if !t.begun { // nothing to commit yet
		t.begun = true
		rows, err = t.beginWith(ctx, rebindCached(query), args)
		if err != nil {
			t.release()
		}
		return true, rows, err
	}
	tags, done, err := t.pipeline(ctx, true, rebindCached(query), args)
	committed = done > 0 && tags[0].String() == "COMMIT"
	switch {
	case done > 0 && !committed:
		err = fmt.Errorf("postgres: commit: %w", pgx.ErrTxCommitRollback)
	case err != nil && !committed:
		err = fmt.Errorf("postgres: commit: %w", err)
	case err != nil:
		err = fmt.Errorf("postgres: exec: %w", err)
	}
	if err != nil {
		t.release() // the pool closes a connection left in a transaction
		return committed, 0, err
	}
	return true, tags[2].RowsAffected(), nil
}

// Rollback aborts the transaction; after Commit or a previous Rollback it returns nil.
func (t *Tx) Rollback(ctx context.Context) error {
	if t.conn == nil {
		return nil
	}
	defer t.release()
	if !t.begun {
		return nil
	}
	if _, err := t.conn.Exec(ctx, "rollback"); err != nil {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}

// release returns the connection to the pool, which closes it unless it is idle, outside any
// transaction (after a failed COMMIT or ROLLBACK, for instance).
func (t *Tx) release() {
	t.conn.Release()
	t.conn = nil
}
