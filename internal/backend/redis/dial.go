package redis

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	// dialTimeout bounds connecting, ioTimeout a write and the wait for a reply.
	dialTimeout = 5 * time.Second
	ioTimeout   = 3 * time.Second
)

// server is where a client connects and what it says first, from its URL.
type server struct {
	addr           string
	tls            *tls.Config // rediss://
	user, password string
	db             int
	redacted       string // the URL with its password masked, for messages
	timeout        time.Duration
}

// parseURL reads redis://[user:password@]host:port[/db] (rediss:// for TLS); the port defaults
// to 6379, the database to 0.
func parseURL(rawURL string) (*server, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("redis: invalid URL (not shown, it may hold a password): %w", err)
	}
	s := &server{redacted: u.Redacted(), timeout: ioTimeout}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("redis: URL %s must start with redis:// or rediss://", s.redacted)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("redis: URL %s: %s; write redis://host:port/db", s.redacted, fmt.Sprintf(format, a...))
	}
	if u.RawQuery != "" || u.Opaque != "" {
		return nil, bad("options after '?' are not supported")
	}
	host, port := u.Hostname(), u.Port()
	s.addr = net.JoinHostPort(cmp.Or(host, "localhost"), cmp.Or(port, "6379"))
	if u.Scheme == "rediss" {
		s.tls = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		if s.db, err = strconv.Atoi(db); err != nil || s.db < 0 {
			return nil, bad("invalid database number: %q", db)
		}
	}
	return s, nil
}

// dial connects, authenticates when the URL has a password, selects the database and pings.
func (s *server) dial(ctx context.Context) (*conn, error) {
	d := net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return nil, err
	}
	if s.tls != nil {
		tc := tls.Client(nc, s.tls)
		hctx, cancel := context.WithTimeout(ctx, dialTimeout)
		err = tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := newConn(nc, s.timeout)
	if err := s.hello(c); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// hello is what a new connection says before its first command: AUTH, SELECT, PING.
func (s *server) hello(c *conn) error {
	var cmds [][]string
	switch {
	case s.password != "" && s.user != "":
		cmds = append(cmds, []string{"AUTH", s.user, s.password})
	case s.password != "":
		cmds = append(cmds, []string{"AUTH", s.password})
	}
	if s.db != 0 {
		cmds = append(cmds, []string{"SELECT", strconv.Itoa(s.db)})
	}
	for _, args := range append(cmds, []string{"PING"}) {
		if _, err := c.do(0, args...); err != nil {
			return err
		}
	}
	return nil
}
