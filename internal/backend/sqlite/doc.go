// Package sqlite implements backend.SQL for SQLite with modernc.org/sqlite (pure Go, no cgo),
// the stand-in database when no PostgreSQL is installed.
//
// URLs:
//
//	sqlite://relative/path.db   a file relative to the working directory
//	sqlite:///abs/path.db       an absolute path (three slashes)
//	sqlite:relative.db          also a relative path
//	sqlite::memory:             a private in-memory database (also sqlite://:memory:)
//
// Query parameters are passed to the driver, so sqlite:///tmp/b.db?_synchronous=FULL overrides
// a default. File databases use WAL, synchronous=NORMAL (a commit survives a crash of the
// process, not of the machine), busy_timeout 5 s and BEGIN IMMEDIATE.
//
// SQLite has one writer at a time, so a DB writes through a single connection: Exec, Begin and
// the transactions queue for it, and transactions never deadlock on lock upgrades. QueryInt reads
// through a separate pool of read-only connections, which WAL lets run beside the writer. An
// in-memory database lives in one connection, used for everything. Do not call the DB's own
// methods while holding one of its transactions in the same goroutine: it waits forever for the
// connection the transaction holds. SQLite transactions are serializable; READ COMMITTED asks
// for less, so they satisfy it. QueryInt reads SQL NULL as 0.
package sqlite
