package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	goredis "github.com/redis/go-redis/v9"

	"github.com/iobench/iobench/internal/backend"
)

// Options tunes Open beyond what the URL says.
type Options struct {
	// MaxConns is the pool size; 0 means go-redis's default, 10 x GOMAXPROCS.
	MaxConns int
}

// Client is a pool of connections to one Redis database. It implements backend.KV and is safe
// for concurrent use.
type Client struct {
	rdb      *goredis.Client
	redacted string // the URL with its password masked, for messages
}

var _ backend.KV = (*Client)(nil)

// Open creates a pool for rawURL (redis:// or rediss://, the database number as the path) and
// pings the server.
func Open(ctx context.Context, rawURL string, opts Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("redis: invalid URL (not shown, it may hold a password): %w", err)
	}
	redacted := u.Redacted()
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("redis: URL %s must start with redis:// or rediss://", redacted)
	}
	o, err := goredis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis: URL %s: %w; write redis://host:port/db", redacted, err)
	}
	o.MaxRetries = -1 // a retried INCR or LPUSH could count twice
	o.DisableIdentity = true
	if opts.MaxConns > 0 {
		o.PoolSize = opts.MaxConns
	}
	c := &Client{rdb: goredis.NewClient(o), redacted: redacted}
	if err := c.rdb.Ping(ctx).Err(); err != nil {
		_ = c.rdb.Close()
		return nil, connectErr(redacted, o.DB, err)
	}
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
	if err := ctx.Err(); err != nil {
		return 0, c.wrap("incr", key, err)
	}
	n, err := c.rdb.Incr(ctx, key).Result()
	if err != nil {
		return 0, c.wrap("incr", key, err)
	}
	return n, nil
}

// Get returns key's counter; ok is false when the key does not exist.
func (c *Client) Get(ctx context.Context, key string) (int64, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, c.wrap("get", key, err)
	}
	n, err := c.rdb.Get(ctx, key).Int64()
	switch {
	case errors.Is(err, goredis.Nil):
		return 0, false, nil
	case err != nil:
		return 0, false, c.wrap("get", key, err)
	}
	return n, true, nil
}

// Del removes keys (DEL); a missing key is not an error.
func (c *Client) Del(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return c.wrap("del", keys[0], err)
	}
	if err := c.rdb.Del(ctx, keys...).Err(); err != nil {
		return c.wrap("del", keys[0], err)
	}
	return nil
}

// wrap adds the command and key to err; a closed client's error wraps backend.ErrClosed.
func (c *Client) wrap(op, key string, err error) error {
	if errors.Is(err, goredis.ErrClosed) {
		return fmt.Errorf("redis: %s %q: client %w", op, key, backend.ErrClosed)
	}
	return fmt.Errorf("redis: %s %q at %s: %w", op, key, c.redacted, err)
}

// Close closes the pool; the Client's methods then fail with backend.ErrClosed.
func (c *Client) Close() error {
	if err := c.rdb.Close(); err != nil && !errors.Is(err, goredis.ErrClosed) {
		return fmt.Errorf("redis: close: %w", err)
	}
	return nil
}
