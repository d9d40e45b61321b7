package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/iobench/iobench/internal/backend"
)

// Memory is the path ParseURL returns for an in-memory database.
const Memory = ":memory:"

// defaults are the driver parameters a file database gets unless its URL sets them.
var defaults = [][2]string{
	{"_busy_timeout", "5000"},
	{"_journal_mode", "WAL"},
	{"_synchronous", "NORMAL"},
	{"_txlock", "immediate"},
}

// DB is a SQLite database: one writer connection and a pool of readers. It implements
// backend.SQL and is safe for concurrent use.
type DB struct {
	w *sql.DB // the only connection that writes
	r *sql.DB // read-only connections for QueryInt; w itself for an in-memory database
}

var _ backend.SQL = (*DB)(nil)

// ParseURL returns the file path (or Memory) and the driver parameters of a sqlite: URL; see
// the package documentation for the accepted forms.
func ParseURL(rawURL string) (path string, params url.Values, err error) {
	const scheme = "sqlite:"
	if len(rawURL) < len(scheme) || !strings.EqualFold(rawURL[:len(scheme)], scheme) {
		return "", nil, fmt.Errorf("sqlite: URL %q must start with sqlite:", rawURL)
	}
	rest := rawURL[len(scheme):]
	rest, query, _ := strings.Cut(rest, "?")
	if params, err = url.ParseQuery(query); err != nil {
		return "", nil, fmt.Errorf("sqlite: URL %q: bad parameters: %w", rawURL, err)
	}
	rest = strings.TrimPrefix(rest, "//")
	if path, err = url.PathUnescape(rest); err != nil {
		return "", nil, fmt.Errorf("sqlite: URL %q: bad path: %w", rawURL, err)
	}
	if path == "" || path == "/" {
		return "", nil, fmt.Errorf("sqlite: URL %q names no file; use sqlite://relative/path.db, sqlite:///abs/path.db or sqlite::memory:", rawURL)
	}
	if strings.ContainsRune(path, 0) {
		return "", nil, fmt.Errorf("sqlite: URL %q: path holds a NUL byte", rawURL)
	}
	return path, params, nil
}

// Open opens (creating if needed) the database named by rawURL and checks it can be read and
// written.
func Open(ctx context.Context, rawURL string) (*DB, error) {
	path, params, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if path == Memory {
		w, err := openPool(ctx, "file::memory:", params, 1)
		if err != nil {
			return nil, fmt.Errorf("sqlite: open in-memory database: %w", err)
		}
		return &DB{w: w, r: w}, nil
	}
	wp := withDefaults(params)
	w, err := openPool(ctx, "file:"+escapePath(path), wp, 1)
	if err != nil {
		return nil, openErr(path, err)
	}
	rp := url.Values{}
	for k, v := range wp {
		if k != "_txlock" && k != "_journal_mode" {
			rp[k] = v
		}
	}
	rp.Set("_query_only", "1")
	r, err := openPool(ctx, "file:"+escapePath(path), rp, max(4, runtime.GOMAXPROCS(0)))
	if err != nil {
		_ = w.Close()
		return nil, openErr(path, err)
	}
	return &DB{w: w, r: r}, nil
}

// withDefaults returns params with the package defaults added where params has no value.
func withDefaults(params url.Values) url.Values {
	out := url.Values{}
	for k, v := range params {
		out[k] = v
	}
	for _, kv := range defaults {
		if !out.Has(kv[0]) {
			out.Set(kv[0], kv[1])
		}
	}
	return out
}

// escapePath escapes the characters that would end the path part of a file: DSN.
func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// openPool opens a database/sql pool of at most n connections and pings it.
func openPool(ctx context.Context, dsn string, params url.Values, n int) (*sql.DB, error) {
	if len(params) > 0 {
		dsn += "?" + params.Encode()
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// openErr says in one line why a database file could not be opened and what to do.
func openErr(path string, err error) error {
	hint := "check the path in --database-url"
	if strings.Contains(err.Error(), "unable to open database file") {
		hint = "create its directory or pass another --database-url"
	}
	return fmt.Errorf("sqlite: cannot open %s: %w; %s", path, err, hint)
}

// Exec runs a statement on the writer connection and returns the number of rows it affected.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := db.w.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: exec: %w", err)
	}
	return rowsAffected(res)
}

// QueryInt runs a read-only query returning one row with one integer column; NULL reads as 0
// and no row is an error.
func (db *DB) QueryInt(ctx context.Context, query string, args ...any) (int64, error) {
	var n sql.NullInt64
	if err := db.r.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: query: %w", err)
	}
	return n.Int64, nil
}

// Begin starts a transaction (BEGIN IMMEDIATE on a file database) on the writer connection,
// waiting until the connection is free.
func (db *DB) Begin(ctx context.Context) (backend.Tx, error) {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: begin: %w", err)
	}
	return &Tx{tx: tx}, nil
}

// Close closes the readers and the writer.
func (db *DB) Close() error {
	var rerr error
	if db.r != db.w {
		rerr = db.r.Close()
	}
	if err := errors.Join(rerr, db.w.Close()); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// Tx is a transaction. It implements backend.Tx and is not safe for concurrent use.
type Tx struct {
	tx *sql.Tx
}

// Exec runs a statement in the transaction and returns the number of rows it affected.
func (t *Tx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: exec: %w", err)
	}
	return rowsAffected(res)
}

// Commit commits the transaction and frees the writer connection.
func (t *Tx) Commit(context.Context) error {
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

// Rollback aborts the transaction; after Commit or a previous Rollback it returns nil.
func (t *Tx) Rollback(context.Context) error {
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("sqlite: rollback: %w", err)
	}
	return nil
}

func rowsAffected(res sql.Result) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: rows affected: %w", err)
	}
	return n, nil
}
