// Package postgres implements backend.SQL for PostgreSQL with a github.com/jackc/pgx/v5 pool.
//
// Queries use ? placeholders, rewritten to $1..$n by Rebind (outside quoted strings, quoted
// identifiers, dollar-quoted strings and comments; so the jsonb operators ?, ?| and ?& cannot
// be written bare). Statements outside transactions go through the pgx pool, prepared once per
// connection and cached (pgx's default QueryExecModeCacheStatement). Transactions run at READ
// COMMITTED on connections taken from the pool once and hijacked (txConns), on which the Tx
// speaks the extended query protocol itself (wireConn): each statement parsed once per
// connection, then Bind and Execute of each statement of a round trip and one Sync in one
// write, every argument as text (strings, integers, booleans, byte slices, nil). BEGIN goes out
// with the first statement of a transaction, so the bus's BEGIN; INSERT costs one round trip,
// and COMMIT one more. Tx.CommitExec (backend.Chainer) sends COMMIT, BEGIN and the next
// transaction's first statement in one write and one round trip, and tells whether the commit
// went through when something failed. QueryInt reads SQL NULL as 0.
//
// With iobench_tx=pgx in the URL (TxParam; Open takes it out), transactions are BatchTx
// instead: pgx alone, on connections of the pgx pool, the same round trips made with pgx
// batches (TestTxRoundTrips counts the writes of both). It is there to measure the hand-written
// path against (bench/pg-wire-vs-pgx.sh). Its differences: arguments are encoded by pgx (more
// types), a statement is prepared in a round trip of its own the first time a connection sees
// it, and a CommitExec whose next statement fails to prepare leaves the commit undone.
//
// The pool size is, in order: pool_max_conns in the URL, Options.MaxConns, 4 x GOMAXPROCS. It
// bounds the transactions' connections and, apart, the pgx pool's: a hijacked connection
// leaves the pgx pool, so a program that runs statements outside transactions while as many
// transactions are open can hold up to twice the size (the bus consumer's statements outside
// transactions are its set-up's). The pool's health checks and connection lifetimes do not
// apply to the transactions' connections: one that the server ended while idle fails the first
// statement of the next transaction on it, and is then closed.
// Open pings the server, so an unreachable server, a wrong password or a missing database
// fail at once with one line and a hint, the password masked:
//
//	postgres: cannot connect to postgres://bench:xxxxx@127.0.0.1:5432/bench: connection
//	refused; start one with 'iobench services up postgres' or pass --database-url
package postgres
