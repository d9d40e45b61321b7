package impl

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The stores' state as the tests read it: raw protocol exchanges, so that no client library is
// needed.

// redisCmd runs one command on database db of the Redis at url and returns an integer or bulk
// reply as a string ("" for a nil bulk), failing the test on an error reply.
func redisCmd(t *testing.T, rawURL string, db int, args ...string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	send := func(args ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := c.Write([]byte(b.String())); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch line[0] {
		case '+', ':':
			return line[1:]
		case '$':
			n, _ := strconv.Atoi(line[1:])
			if n < 0 {
				return ""
			}
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatal(err)
			}
			return string(buf[:n])
		}
		t.Fatalf("redis %v: %s", args, line)
		return ""
	}
	send("SELECT", strconv.Itoa(db))
	return send(args...)
}

// redisInt is redisCmd's reply as a number (0 for a missing key).
func redisInt(t *testing.T, rawURL string, db int, args ...string) int {
	t.Helper()
	s := redisCmd(t, rawURL, db, args...)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("redis %v: %q is not a number", args, s)
	}
	return n
}

// memcachedGet returns the value of key at the Memcached at addr, and whether it exists.
func memcachedGet(t *testing.T, addr, key string) (string, bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c, "get %s\r\n", key); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(line) == "END" {
		return "", false
	}
	value, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(value), true
}
