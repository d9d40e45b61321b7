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

var _ backend.SQL = (*DB)(nil)

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

// beginWith sends BEGIN and the first statement in one write (a batch of both, each prepared
// once per connection) and reads both results. It goes to pgconn directly: pgx's own batches
// cost the bus consumer a tenth of its CPU in bookkeeping.
func (t *Tx) beginWith(ctx context.Context, query string, args []any) (int64, error) {
	c := t.conn.Conn()
	begin, err := c.Prepare(ctx, beginSQL, beginSQL)
	if err != nil {
		return 0, fmt.Errorf("postgres: begin: %w", err)
	}
	sd, err := c.Prepare(ctx, query, query)
	if err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	var b pgconn.Batch
	b.ExecStatement(begin, nil, nil, nil)
	if err := queue(&b, c, sd, args); err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	tag, err := lastResult(c.PgConn().ExecBatch(ctx, &b))
	if err != nil {
		return 0, fmt.Errorf("postgres: exec: %w", err)
	}
	return tag.RowsAffected(), nil
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
