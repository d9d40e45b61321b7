package service

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	amqp "github.com/rabbitmq/amqp091-go"
)

// The probes open a real protocol session (login included) and return the server's version:
// an open port alone does not mean the server can serve.

// deadline returns ctx's deadline, or 5 s from now.
func deadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(5 * time.Second)
}

// dialer dials with ctx and leaves a deadline on the connection for the handshake.
func dialer(ctx context.Context) func(network, addr string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		_ = c.SetDeadline(deadline(ctx))
		return c, nil
	}
}

// probeAMQP completes an AMQP 0-9-1 handshake (connection.open on the URL's vhost).
func probeAMQP(ctx context.Context, u string) (string, error) {
	conn, err := amqp.DialConfig(u, amqp.Config{Dial: dialer(ctx), Locale: "en_US"})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	v, _ := conn.Properties["version"].(string)
	return v, nil
}

// probePostgres connects and asks for the server version.
func probePostgres(ctx context.Context, u string) (string, error) {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", err
	}
	// "15.20 (Debian 15.20-0+deb12u1)" -> "15.20"
	if f := strings.Fields(v); len(f) > 0 {
		v = f[0]
	}
	return v, nil
}

// probeRedis sends AUTH (when the URL has a password), PING and INFO server.
func probeRedis(ctx context.Context, u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	if pu.Scheme != "redis" {
		return "", fmt.Errorf("scheme %q not supported (want redis://host:port)", pu.Scheme)
	}
	c, err := dialer(ctx)("tcp", hostPort(pu.Host, "6379"))
	if err != nil {
		return "", err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if pw, ok := pu.User.Password(); ok {
		args := []string{"AUTH", pw}
		if name := pu.User.Username(); name != "" && name != "default" {
			args = []string{"AUTH", name, pw}
		}
		if _, err := redisCall(c, r, args...); err != nil {
			return "", err
		}
	}
	if reply, err := redisCall(c, r, "PING"); err != nil {
		return "", err
	} else if reply != "PONG" {
		return "", fmt.Errorf("PING answered %q", reply)
	}
	info, err := redisCall(c, r, "INFO", "server")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", nil
}

// redisCall sends one command and reads a simple, error or bulk string reply.
func redisCall(c net.Conn, r *bufio.Reader, args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("redis: %s", line[1:])
	case '$':
		var n int
		if _, err := fmt.Sscanf(line[1:], "%d", &n); err != nil || n < 0 || n > 1<<20 {
			return "", fmt.Errorf("bad bulk reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// probeMemcached sends "version".
func probeMemcached(ctx context.Context, u string) (string, error) {
	addr := strings.TrimPrefix(u, "memcached://")
	c, err := dialer(ctx)("tcp", hostPort(strings.TrimSuffix(addr, "/"), "11211"))
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write([]byte("version\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(line), "VERSION ")
	if !ok {
		return "", fmt.Errorf("version answered %q", strings.TrimSpace(line))
	}
	return v, nil
}

// probeNATS connects (with the URL's credentials) and returns the server's version.
func probeNATS(ctx context.Context, u string) (string, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline(ctx))
	defer cancel()
	nc, err := nats.Connect(u, nats.Timeout(time.Until(deadline(ctx))), nats.NoReconnect(), nats.Name("iobench-probe"))
	if err != nil {
		return "", err
	}
	defer nc.Close()
	if err := nc.FlushWithContext(ctx); err != nil {
		return "", err
	}
	return nc.ConnectedServerVersion(), nil
}

// hostPort adds the default port to a host without one.
func hostPort(hp, defPort string) string {
	if _, _, err := net.SplitHostPort(hp); err == nil {
		return hp
	}
	return net.JoinHostPort(strings.Trim(hp, "[]"), defPort)
}
