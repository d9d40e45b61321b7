package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/iobench/iobench/internal/backend"
)

// Options tunes Open beyond what the URL says.
type Options struct {
	// MaxConns is how many idle connections the client keeps for blocking pops (a waiting Pop
	// holds one of its own); 0 means 8. Every other command shares one pipelined connection.
	MaxConns int
}

// Client is a connection to one Redis database, pipelined and shared by its callers, with
// connections of their own lent to blocking pops. It implements backend.KV and is safe for
// concurrent use.
type Client struct {
	srv  *server
	pipe atomic.Pointer[conn] // the shared connection; replaced when it breaks

	mu       sync.Mutex // dialling the shared connection, spare, closed
	spare    []*conn    // idle connections for blocking commands
	maxSpare int
	closed   bool
}

var _ backend.KV = (*Client)(nil)

// Open connects to rawURL (redis:// or rediss://, the database number as the path) and pings
// the server.
func Open(ctx context.Context, rawURL string, opts Options) (*Client, error) {
	s, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	p, err := s.dial(ctx)
	if err != nil {
		return nil, connectErr(s.redacted, s.db, err)
	}
	c := &Client{srv: s, maxSpare: 8}
	if opts.MaxConns > 0 {
		c.maxSpare = opts.MaxConns
	}
	c.pipe.Store(p)
	return c, nil
}

// connectErr turns a failed connect into one line: where, why, what to do.
func connectErr(redacted string, db int, err error) error {
	why, hint := err.Error(), "start one with 'iobench services up redis' or pass --redis-url"
	msg := err.Error()
	var dnsErr *net.DNSError
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.As(err, &dnsErr):
		why, hint = fmt.Sprintf("unknown host %q", dnsErr.Name), "check the host in --redis-url"
	case errors.As(err, &nerr) && nerr.Timeout():
		why = "timed out"
	case strings.HasPrefix(msg, "WRONGPASS"), strings.HasPrefix(msg, "NOAUTH"), strings.Contains(msg, "invalid password"):
		why, hint = "wrong user or password", "check the user and password in --redis-url"
	case strings.Contains(msg, "DB index is out of range"):
		why, hint = fmt.Sprintf("database %d is out of range", db), "use a database number below the server's 'databases' setting (16 by default)"
	}
	return &backend.ConnectError{Msg: fmt.Sprintf("redis: cannot connect to %s: %s; %s", redacted, why, hint), Err: err}
}

// Incr adds 1 to key's counter (INCR; a missing key counts from 0) and returns the new value.
func (c *Client) Incr(ctx context.Context, key string) (int64, error) {
	n, err := integer(c.do(ctx, "INCR", key))
	if err != nil {
		return 0, c.wrap("incr", key, err)
	}
	return n, nil
}

// Get returns key's counter; ok is false when the key does not exist.
func (c *Client) Get(ctx context.Context, key string) (int64, bool, error) {
	r, err := c.do(ctx, "GET", key)
	switch {
	case err != nil:
		return 0, false, c.wrap("get", key, err)
	case r.kind == 0:
		return 0, false, nil
	case r.kind != '$':
		return 0, false, c.wrap("get", key, unexpected(r))
	}
	n, err := strconv.ParseInt(string(r.bulk), 10, 64)
	if err != nil {
		return 0, false, c.wrap("get", key, fmt.Errorf("not a counter: %q", r.bulk))
	}
	return n, true, nil
}

// Del removes keys (DEL); a missing key is not an error.
func (c *Client) Del(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	if _, err := integer(c.do(ctx, append([]string{"DEL"}, keys...)...)); err != nil {
		return c.wrap("del", keys[0], err)
	}
	return nil
}

// do checks ctx, then runs a command on the shared connection.
func (c *Client) do(ctx context.Context, args ...string) (reply, error) {
	if err := ctx.Err(); err != nil {
		return reply{}, err
	}
	p, err := c.shared(ctx)
	if err != nil {
		return reply{}, err
	}
	return p.do(0, args...)
}

// shared returns the shared connection, dialling a new one when the last broke: a command is
// never resent, but the next one gets a working connection.
func (c *Client) shared(ctx context.Context) (*conn, error) {
	if p := c.pipe.Load(); p.alive() {
		return p, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	if p := c.pipe.Load(); p.alive() {
		return p, nil
	}
	p, err := c.srv.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.pipe.Store(p)
	return p, nil
}

// lend returns a connection of the caller's own, for a blocking command; giveBack takes it back.
func (c *Client) lend(ctx context.Context) (*conn, error) {
	c.mu.Lock()
	for len(c.spare) > 0 {
		p := c.spare[len(c.spare)-1]
		c.spare = c.spare[:len(c.spare)-1]
		if p.alive() {
			c.mu.Unlock()
			return p, nil
		}
	}
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	return c.srv.dial(ctx)
}

// giveBack keeps p for the next blocking command, or closes it.
func (c *Client) giveBack(p *conn) {
	c.mu.Lock()
	if !c.closed && p.alive() && len(c.spare) < c.maxSpare {
		c.spare = append(c.spare, p)
		p = nil
	}
	c.mu.Unlock()
	if p != nil {
		p.close()
	}
}

// integer is an integer reply's value.
func integer(r reply, err error) (int64, error) {
	switch {
	case err != nil:
		return 0, err
	case r.kind != ':':
		return 0, unexpected(r)
	}
	return r.n, nil
}

// unexpected is the error for a reply of the wrong type.
func unexpected(r reply) error {
	if r.kind == 0 {
		return errors.New("unexpected nil reply")
	}
	return fmt.Errorf("unexpected reply of type %q", r.kind)
}

// wrap adds the command and key to err; a closed client's error wraps backend.ErrClosed.
func (c *Client) wrap(op, key string, err error) error {
	if errors.Is(err, errClosed) {
		return fmt.Errorf("redis: %s %q: client %w", op, key, backend.ErrClosed)
	}
	return fmt.Errorf("redis: %s %q at %s: %w", op, key, c.srv.redacted, err)
}

// Close closes the connections; the Client's methods then fail with backend.ErrClosed. A pop
// waiting in the server keeps its connection until its slice ends, then closes it.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	spare := c.spare
	c.spare = nil
	c.mu.Unlock()
	c.pipe.Load().close()
	for _, p := range spare {
		p.close()
	}
	return nil
}
