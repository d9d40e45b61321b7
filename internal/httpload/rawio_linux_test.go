package httpload

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// rawPair returns a rawIO client connection to a TCP server on 127.0.0.1 and the server's end.
func rawPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := rawIO(nc)
	if _, ok := c.(*rawConn); !ok {
		t.Fatalf("rawIO gave a %T, want *rawConn", c)
	}
	srv := <-accepted
	if srv == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, srv
}

// TestRawConnWritesAllThenEOF: a write far over the socket buffers, to a server that starts
// reading late, goes through whole (EAGAIN parks and resumes); the server's answer is read, then
// io.EOF when it closes.
func TestRawConnWritesAllThenEOF(t *testing.T) {
	c, srv := rawPair(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	got := make(chan []byte, 1)
	go func() {
		time.Sleep(100 * time.Millisecond) // let the client's socket buffer fill
		b, _ := io.ReadAll(io.LimitReader(srv, int64(len(payload))))
		got <- b
		srv.Write([]byte("done"))
		srv.Close()
	}()
	if n, err := c.Write(payload); n != len(payload) || err != nil {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(payload))
	}
	if b := <-got; !bytes.Equal(b, payload) {
		t.Fatalf("server read %d bytes, not the %d written", len(b), len(payload))
	}
	answer, err := io.ReadAll(c)
	if err != nil || string(answer) != "done" {
		t.Fatalf("ReadAll = %q, %v; want \"done\" and io.EOF", answer, err)
	}
	if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read after close = %d, %v; want 0, io.EOF", n, err)
	}
}

// TestRawConnDeadlines: a server that neither answers nor reads makes Read and Write time out
// with errors Do counts as timeouts, as net's own would.
func TestRawConnDeadlines(t *testing.T) {
	c, _ := rawPair(t)
	c.SetDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := c.Read(make([]byte, 64)); !isTimeout(err) {
		t.Fatalf("Read past the deadline: %v, want a timeout", err)
	}
	c.SetDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := c.Write(make([]byte, 64<<20))
	if !isTimeout(err) || n >= 64<<20 {
		t.Fatalf("Write past the deadline: %d bytes, %v; want fewer and a timeout", n, err)
	}
	c.Close()
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("Read after Close: %v, want a closed-connection error", err)
	}
}
