package postgres

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// txConns holds the connections that transactions run on: each taken from the pgx pool once,
// after its start-up, and hijacked (wireConn), then kept here between transactions; at most
// max are out of the pgx pool at once. A connection left in a transaction, or broken, is closed
// rather than kept, as the pgx pool would.
type txConns struct {
	pool *pgxpool.Pool
	sem  chan struct{} // a slot per connection in use or being dialled

	mu     sync.Mutex
	idle   []*wireConn
	closed bool
}

func newTxConns(pool *pgxpool.Pool, max int) *txConns {
	return &txConns{pool: pool, sem: make(chan struct{}, max)}
}

// get returns an idle connection, or a new one when none is idle and fewer than max are in use;
// else it waits for one to come back, or for ctx to end.
func (p *txConns) get(ctx context.Context) (*wireConn, error) {
	select {
	case p.sem <- struct{}{}:
	default:
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	c, err := p.dial(ctx)
	if err != nil {
		<-p.sem
		return nil, err
	}
	return c, nil
}

// dial takes a connection from the pgx pool (which connects, authenticates and sets it up) and
// takes it over.
func (p *txConns) dial(ctx context.Context) (*wireConn, error) {
	pc, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	conn := pc.Hijack()
	if err := conn.PgConn().SyncConn(ctx); err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	h, err := conn.PgConn().Hijack()
	if err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	return newWireConn(h.Conn, h.TxStatus), nil
}

// put gives c back: kept when idle and sound, else closed.
func (p *txConns) put(c *wireConn) {
	p.mu.Lock()
	keep := !p.closed && !c.broken && c.status == 'I'
	if keep {
		p.idle = append(p.idle, c)
	}
	p.mu.Unlock()
	if !keep {
		_ = c.close()
	}
	<-p.sem
}

// close closes the idle connections; those in use are closed as they come back.
func (p *txConns) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, c := range idle {
		_ = c.close()
	}
}
