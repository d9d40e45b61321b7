package postgres

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/service/servicetest"
)

// writeCounter is a connection that counts its writes.
type writeCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c writeCounter) Write(b []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(b)
}

// TestTxRoundTrips: both ways of speaking transactions (Tx and BatchTx) send the same writes,
// once a connection has its statements prepared: BEGIN with the first statement in one, a later
// statement in one, COMMIT chained with BEGIN and the next statement in one, COMMIT in one.
// Otherwise a benchmark of one against the other would compare two protocols.
func TestTxRoundTrips(t *testing.T) {
	for _, viaPgx := range []bool{false, true} {
		t.Run(map[bool]string{false: "wire", true: "pgx"}[viaPgx], func(t *testing.T) {
			db, writes := countingDB(t, viaPgx)
			ctx := t.Context()
			table := fmt.Sprintf("iobench_rt_%d", time.Now().UnixNano())
			if _, err := db.Exec(ctx, "CREATE TABLE "+table+" (id int PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Exec(context.Background(), "DROP TABLE "+table) })
			insert := "INSERT INTO " + table + " (id) VALUES (?)"
			id := 0
			exec := func(tx backend.Tx) error { id++; _, err := tx.Exec(ctx, insert, id); return err }
			chain := func(tx backend.Tx) error {
				id++
				_, _, err := tx.(backend.Chainer).CommitExec(ctx, insert, id)
				return err
			}
			commit := func(tx backend.Tx) error { return tx.Commit(ctx) }
			for round := range 2 { // the first prepares the statements: not counted
				tx, err := db.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []struct {
					what string
					do   func(backend.Tx) error
				}{{"BEGIN; INSERT", exec}, {"INSERT", exec}, {"COMMIT; BEGIN; INSERT", chain}, {"COMMIT", commit}} {
					before := writes.Load()
					if err := s.do(tx); err != nil {
						t.Fatalf("%s: %v", s.what, err)
					}
					if n := writes.Load() - before; round == 1 && n != 1 {
						t.Errorf("%s: %d writes, want 1", s.what, n)
					}
				}
			}
		})
	}
}

// countingDB opens a DB of one connection for transactions whose writes are counted; viaPgx picks
// BatchTx over Tx.
func countingDB(t *testing.T, viaPgx bool) (*DB, *atomic.Int64) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(servicetest.URL(t, "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 2
	writes := new(atomic.Int64)
	var d net.Dialer
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return writeCounter{c, writes}, nil
	}
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := &DB{pool: pool}
	if !viaPgx {
		db.tx = newTxConns(pool, 1)
	}
	t.Cleanup(func() { db.Close() })
	return db, writes
}
