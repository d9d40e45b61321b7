package redis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/service/servicetest"
)

func TestReadReply(t *testing.T) {
	tests := []struct {
		in, want string // "kind n bulk", "nil", "Error: ..." (an error reply) or "error: ..."
	}{
		{":42\r\n", ": 42 "},
		{":-7\r\n", ": -7 "},
		{":9223372036854775807\r\n", ": 9223372036854775807 "},
		{"+OK\r\n", "+ 0 OK"},
		{"$5\r\nvisit\r\n", "$ 0 visit"},
		{"$0\r\n\r\n", "$ 0 "},
		{"$-1\r\n", "nil"},
		{"*2\r\n$5\r\nqueue\r\n$5\r\nvisit\r\n", "* 2 visit"},
		{"*-1\r\n", "nil"},
		{"-WRONGTYPE Operation against a key\r\n", "Error: WRONGTYPE Operation against a key"},
		{":12a\r\n", `error: redis: protocol error: bad integer "12a"`},
		{":99999999999999999999\r\n", `error: redis: protocol error: bad integer "99999999999999999999"`},
		{"$3\r\nabcd\r\n", `error: redis: protocol error: bulk string without its \r\n`},
		{"$-2\r\n", `error: redis: protocol error: bad length "-2"`},
		{"*1\r\n:1\r\n", "error: redis: protocol error: array element starts with ':', want a bulk string"},
		{"!3\r\n", "error: redis: protocol error: reply starts with '!'"},
		{"+OK\n", `error: redis: protocol error: malformed reply line "+OK\n"`},
		{"$5\r\nvis", "error: unexpected EOF"},
	}
	for _, tt := range tests {
		r, err := readReply(bufio.NewReader(strings.NewReader(tt.in)))
		var got string
		var redisErr Error
		switch {
		case errors.As(err, &redisErr):
			got = "Error: " + err.Error()
		case err != nil:
			got = "error: " + err.Error()
		case r.kind == 0:
			got = "nil"
		default:
			got = fmt.Sprintf("%c %d %s", r.kind, r.n, r.bulk)
		}
		if got != tt.want {
			t.Errorf("readReply(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestAppendCommand(t *testing.T) {
	got := string(appendCommand([]byte("x"), "LPUSH", "queue", ""))
	if want := "x*3\r\n$5\r\nLPUSH\r\n$5\r\nqueue\r\n$0\r\n\r\n"; got != want {
		t.Fatalf("appendCommand = %q, want %q", got, want)
	}
}

// fakeServer accepts connections and runs each through serve; it answers PING itself, so a
// client's handshake passes.
func fakeServer(t *testing.T, serve func(nc net.Conn, br *bufio.Reader)) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				if _, err := readCommand(br); err != nil {
					return
				}
				nc.Write([]byte("+PONG\r\n"))
				serve(nc, br)
			})
		}
	})
	s, err := parseURL("redis://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s.timeout = 200 * time.Millisecond
	return s
}

// readCommand reads one command as a client sends it (an array of bulk strings).
func readCommand(br *bufio.Reader) ([]string, error) {
	kind, line, err := readLine(br)
	if err != nil {
		return nil, err
	}
	if kind != '*' {
		return nil, fmt.Errorf("command starts with %q", kind)
	}
	n, err := parseLength(line)
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		_, line, err := readLine(br)
		if err != nil {
			return nil, err
		}
		r, err := readBulk(br, line)
		if err != nil {
			return nil, err
		}
		args[i] = string(r.bulk)
	}
	return args, nil
}

// incrAll runs n INCRs at once on c and returns their errors.
func incrAll(c *conn, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = c.do(0, "INCR", "k") })
	}
	wg.Wait()
	return errs
}

// TestLostConnectionFailsEveryWaitingCall: a server that reads commands and hangs up fails all of
// them at once, and every later command too, without waiting for the timeout.
func TestLostConnectionFailsEveryWaitingCall(t *testing.T) {
	got := make(chan struct{})
	s := fakeServer(t, func(nc net.Conn, br *bufio.Reader) {
		readCommand(br)
		<-got
	})
	c, err := s.dial(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, func() { close(got) })
	start := time.Now()
	for i, err := range incrAll(c, 20) {
		if err == nil {
			t.Fatalf("INCR #%d succeeded on a connection the server closed", i)
		}
	}
	if took := time.Since(start); took > s.timeout {
		t.Errorf("the calls failed after %s, want at once when the server hung up", took)
	}
	if _, err := c.do(0, "INCR", "k"); err == nil || c.alive() {
		t.Fatalf("a command on a broken connection: %v, alive %v", err, c.alive())
	}
}

// TestSilentServerTimesOut: a server that never answers fails the waiting calls after the
// timeout (within two), and a BRPOP is given its own wait on top.
func TestSilentServerTimesOut(t *testing.T) {
	s := fakeServer(t, func(nc net.Conn, br *bufio.Reader) {
		for {
			if _, err := readCommand(br); err != nil {
				return
			}
		}
	})
	for _, block := range []time.Duration{0, 300 * time.Millisecond} {
		c, err := s.dial(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.do(block, "BRPOP", "q", "0.3")
		took := time.Since(start)
		var nerr net.Error
		if !errors.As(err, &nerr) || !nerr.Timeout() {
			t.Fatalf("block %s: %v; want a timeout", block, err)
		}
		if took < block+s.timeout || took > block+2*s.timeout+time.Second {
			t.Errorf("block %s: timed out after %s, want between %s and %s", block, took, block+s.timeout, block+2*s.timeout)
		}
	}
}

// TestErrorReplyFailsOnlyItsCommand: an error reply answers its own command; those around it on
// the same connection get theirs.
func TestErrorReplyFailsOnlyItsCommand(t *testing.T) {
	c := openTest(t)
	ctx := t.Context()
	list, counter := "iobench-test-wrongtype-list", "iobench-test-wrongtype-counter"
	t.Cleanup(func() { c.Del(context.Background(), list, counter) })
	if _, err := c.do(ctx, "LPUSH", list, "x"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		key := counter
		if i%4 == 0 {
			key = list
		}
		wg.Go(func() { _, errs[i] = c.Incr(ctx, key) })
	}
	wg.Wait()
	for i, err := range errs {
		var redisErr Error
		if wantErr := i%4 == 0; wantErr != errors.As(err, &redisErr) {
			t.Errorf("INCR #%d: %v (want an error reply: %v)", i, err, wantErr)
		}
	}
	if n, _, err := c.Get(ctx, counter); err != nil || n != 30 {
		t.Fatalf("counter = %d, %v; want 30", n, err)
	}
}

// TestRedialsAfterLoss: once the shared connection breaks, the commands on it fail, and the next
// command gets a new connection.
func TestRedialsAfterLoss(t *testing.T) {
	c := openTest(t)
	ctx := t.Context()
	key := "iobench-test-redial"
	t.Cleanup(func() { c.Del(context.Background(), key) })
	c.pipe.Load().nc.Close() // as if Redis had dropped it
	if _, err := c.Incr(ctx, key); err == nil {
		t.Fatal("INCR on a closed connection succeeded")
	}
	if n, err := c.Incr(ctx, key); err != nil || n != 1 {
		t.Fatalf("INCR after the loss = %d, %v; want 1 on a new connection", n, err)
	}
}

// TestConcurrentCommandsShareWrites: commands issued at once reach Redis in fewer writes than
// commands, each counted once.
func TestConcurrentCommandsShareWrites(t *testing.T) {
	var mu sync.Mutex
	var reads, cmds int
	s := fakeServer(t, func(nc net.Conn, br *bufio.Reader) {
		var n int64
		for {
			args, err := readCommand(br)
			if err != nil {
				return
			}
			mu.Lock()
			cmds++
			if br.Buffered() == 0 {
				reads++ // the end of what one read brought
			}
			mu.Unlock()
			if args[0] == "INCR" {
				n++
				fmt.Fprintf(nc, ":%d\r\n", n)
			}
		}
	})
	c, err := s.dial(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for i, err := range incrAll(c, 200) {
		if err != nil {
			t.Fatalf("INCR #%d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if cmds != 200 || reads >= cmds {
		t.Fatalf("%d commands in %d reads; want 200 in fewer", cmds, reads)
	}
	t.Logf("200 concurrent INCRs arrived in %d reads", reads)
}

// openTest opens a Client on the tests' Redis, database 1.
func openTest(t *testing.T) *Client {
	t.Helper()
	url := strings.TrimSuffix(servicetest.URL(t, "redis"), "/") + "/1"
	c, err := Open(t.Context(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
