package zmq_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/zmq"
)

// ipcURL returns a zmq+ipc URL whose socket file is in a directory of the test's own.
func ipcURL(t *testing.T) string {
	t.Helper()
	return "zmq+ipc://" + filepath.Join(t.TempDir(), "q")
}

// bound opens a Queue at rawURL with its PULL socket bound, as the suite wants it.
func bound(t *testing.T, rawURL string) *zmq.Queue {
	t.Helper()
	q := conformance.Open(t, func(ctx context.Context) (*zmq.Queue, error) { return zmq.Open(ctx, rawURL) })
	if err := q.Listen(); err != nil {
		t.Fatal(err)
	}
	return q
}

func TestConformance(t *testing.T) {
	for name, url := range map[string]func(t *testing.T) string{
		"ipc": ipcURL,
		"tcp": func(*testing.T) string { return "zmq+tcp://127.0.0.1:0" },
	} {
		t.Run(name, func(t *testing.T) {
			conformance.WorkQueue(t, func(t *testing.T, _ string) backend.WorkQueue { return bound(t, url(t)) })
		})
	}
}

// TestSenderAndReceiverApart pushes through Queues of their own, as processes do: the receiver
// binds, the senders connect, and a sender that comes first waits for the receiver.
func TestSenderAndReceiverApart(t *testing.T) {
	url := ipcURL(t)
	ctx := t.Context()
	early := conformance.Open(t, func(ctx context.Context) (*zmq.Queue, error) { return zmq.Open(ctx, url) })
	defer early.Close()
	pushed := make(chan error, 1)
	go func() { pushed <- early.Push(ctx, []byte("before the receiver")) }()
	time.Sleep(300 * time.Millisecond) // the sender retries its connect meanwhile
	recv := bound(t, url)
	defer recv.Close()
	if err := <-pushed; err != nil {
		t.Fatalf("Push before the receiver bound: %v", err)
	}
	late := conformance.Open(t, func(ctx context.Context) (*zmq.Queue, error) { return zmq.Open(ctx, url) })
	if err := late.Push(ctx, []byte("after")); err != nil {
		t.Fatal(err)
	}
	if err := late.Close(); err != nil { // a sender going away leaves the receiver receiving
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 2 {
		body, err := recv.Pop(ctx, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got[string(body)] = true
	}
	if !got["before the receiver"] || !got["after"] || recv.Received() != 2 {
		t.Fatalf("received %v (%d), want both messages", got, recv.Received())
	}
	if err := early.Push(ctx, []byte("still")); err != nil {
		t.Fatal(err)
	}
	if body, err := recv.Pop(ctx, 5*time.Second); err != nil || string(body) != "still" {
		t.Fatalf("Pop after a sender closed = %q, %v", body, err)
	}
}

func TestNoReceiver(t *testing.T) {
	q, err := zmq.Open(t.Context(), ipcURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	err = q.Push(t.Context(), []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "nothing bound there within 5s") || !strings.HasSuffix(err.Error(), "start the receiver first") {
		t.Fatalf("Push with no receiver: %v", err)
	}
	if _, err := q.Len(t.Context()); !errors.Is(err, backend.ErrUnsupported) {
		t.Fatalf("Len: %v, want backend.ErrUnsupported", err)
	}
}

func TestStaleSocketFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // the file stays, as after a crash
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	q := bound(t, "zmq+ipc://"+path)
	defer q.Close()
	other, err := zmq.Open(t.Context(), "zmq+ipc://"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Listen(); err == nil || !strings.Contains(err.Error(), "another receiver is bound there; stop it or choose another endpoint") {
		t.Fatalf("binding a live endpoint again: %v", err)
	}
}

func TestURLs(t *testing.T) {
	for url, want := range map[string]string{
		"zmq+ipc:///tmp/zmq.sock":  "ipc:///tmp/zmq.sock",
		"ZMQ+TCP://127.0.0.1:5555": "tcp://127.0.0.1:5555",
		"zmq+tcp://127.0.0.1":      "want zmq+tcp://host:port",
		"zmq+tcp://h:1/path":       "want zmq+tcp://host:port",
		"zmq+ipc://":               "has no socket path",
		"ipc:///tmp/zmq.sock":      "must start with zmq+ipc:// or zmq+tcp://",
		"zmq+inproc://x":           "must start with zmq+ipc:// or zmq+tcp://",
	} {
		q, err := zmq.Open(t.Context(), url)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = q.Endpoint()
			q.Close()
		}
		if !strings.Contains(got, want) {
			t.Errorf("Open(%q): %q, want %q", url, got, want)
		}
	}
}
