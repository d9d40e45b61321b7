package memcached

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/iobench/iobench/internal/backend"
)

// opTimeout bounds each command's wait for the server.
const opTimeout = 3 * time.Second

// incrTries bounds how often Incr goes back to incr after another client added the key it
// found missing (it takes a delete between the two to need a third try).
const incrTries = 3

// Options tunes Open beyond what the URL says.
type Options struct {
	// MaxConns is how many idle connections are kept for reuse; 0 means gomemcache's 2.
	MaxConns int
}

// Client is a gomemcache client of one Memcached server. It implements backend.KV and is safe
// for concurrent use.
type Client struct {
	mc     *memcache.Client
	addr   string
	closed atomic.Bool
}

var _ backend.KV = (*Client)(nil)

// Open connects to the server at rawURL (memcached://host:port) and asks its version.
func Open(ctx context.Context, rawURL string, opts Options) (*Client, error) {
	addr, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	var servers memcache.ServerList
	if err := servers.SetServers(addr); err != nil {
		return nil, connectErr(addr, err)
	}
	c := &Client{mc: memcache.NewFromSelector(&servers), addr: addr}
	c.mc.Timeout = opTimeout
	c.mc.MaxIdleConns = opts.MaxConns
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.mc.Ping(); err != nil {
		_ = c.mc.Close()
		return nil, connectErr(addr, err)
	}
	return c, nil
}

// parseURL returns the host:port of a memcached:// URL.
func parseURL(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return "", fmt.Errorf("memcached: invalid URL: %w; write memcached://host:port", err)
	}
	switch {
	case u.Scheme != "memcached":
		return "", fmt.Errorf("memcached: URL %s must start with memcached://", u.Redacted())
	case u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "":
		return "", fmt.Errorf("memcached: URL %s: want memcached://host:port and nothing else", u.Redacted())
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "11211"), nil
	}
	return u.Host, nil
}

// connectErr turns a failed connect into one line: where, why, what to do.
func connectErr(addr string, err error) error {
	why, hint := err.Error(), "start one with 'iobench services up memcached' or pass --memcached-addr"
	var dnsErr *net.DNSError
	var tmo *memcache.ConnectTimeoutError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.As(err, &dnsErr):
		why, hint = fmt.Sprintf("unknown host %q", dnsErr.Name), "check the host in --memcached-addr"
	case errors.As(err, &tmo):
		why = "timed out"
	}
	return &backend.ConnectError{Msg: fmt.Sprintf("memcached: cannot connect to %s: %s; %s", addr, why, hint), Err: err}
}

// Incr adds 1 to key's counter and returns the new value; a missing key counts from 0 (see the
// package comment for how the text protocol does it).
func (c *Client) Incr(ctx context.Context, key string) (int64, error) {
	if err := c.usable(ctx); err != nil {
		return 0, c.wrap("incr", key, err)
	}
	for range incrTries {
		n, err := c.mc.Increment(key, 1)
		if !errors.Is(err, memcache.ErrCacheMiss) {
			if err != nil {
				return 0, c.wrap("incr", key, err)
			}
			return int64(n), nil
		}
		err = c.mc.Add(&memcache.Item{Key: key, Value: []byte("1")})
		if !errors.Is(err, memcache.ErrNotStored) {
			if err != nil {
				return 0, c.wrap("add", key, err)
			}
			return 1, nil
		}
	}
	return 0, fmt.Errorf("memcached: incr %q at %s: the key was deleted and added again %d times under it; stop deleting it while counting", key, c.addr, incrTries)
}

// Get returns key's counter; ok is false when the key does not exist.
func (c *Client) Get(ctx context.Context, key string) (int64, bool, error) {
	if err := c.usable(ctx); err != nil {
		return 0, false, c.wrap("get", key, err)
	}
	it, err := c.mc.Get(key)
	switch {
	case errors.Is(err, memcache.ErrCacheMiss):
		return 0, false, nil
	case err != nil:
		return 0, false, c.wrap("get", key, err)
	}
	n, err := strconv.ParseInt(strings.TrimRight(string(it.Value), " "), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("memcached: get %q at %s: value %.20q is not a counter", key, c.addr, it.Value)
	}
	return n, true, nil
}

// Del removes keys; a missing key is not an error.
func (c *Client) Del(ctx context.Context, keys ...string) error {
	for _, key := range keys {
		if err := c.usable(ctx); err != nil {
			return c.wrap("delete", key, err)
		}
		if err := c.mc.Delete(key); err != nil && !errors.Is(err, memcache.ErrCacheMiss) {
			return c.wrap("delete", key, err)
		}
	}
	return nil
}

// usable returns why no command may be sent: the Client is closed or ctx has ended.
func (c *Client) usable(ctx context.Context) error {
	if c.closed.Load() {
		return fmt.Errorf("client %w", backend.ErrClosed)
	}
	return ctx.Err()
}

// wrap adds the command, key and server to err, and what to do about a malformed key.
func (c *Client) wrap(op, key string, err error) error {
	if errors.Is(err, memcache.ErrMalformedKey) {
		return fmt.Errorf("memcached: %s %.40q: key longer than 250 bytes or with spaces or control characters; choose another", op, key)
	}
	return fmt.Errorf("memcached: %s %q at %s: %w", op, key, c.addr, err)
}

// Close closes the idle connections; the Client's methods then fail with backend.ErrClosed.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	if err := c.mc.Close(); err != nil {
		return fmt.Errorf("memcached: close: %w", err)
	}
	return nil
}
