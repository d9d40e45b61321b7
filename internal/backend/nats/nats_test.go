package nats_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/nats"
)

// startServer starts an embedded NATS server with JetStream on a free 127.0.0.1 port and
// returns its URL; it stops when the test ends.
func startServer(t *testing.T, jetStream bool) string {
	t.Helper()
	return runServer(t, -1, t.TempDir(), jetStream).ClientURL()
}

// runServer starts an embedded NATS server on port (-1: any free one) storing in dir.
func runServer(t *testing.T, port int, dir string, jetStream bool) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: jetStream,
		StoreDir:  dir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("embedded nats-server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

func open(t *testing.T, url string) *nats.Broker {
	t.Helper()
	return conformance.Open(t, func(ctx context.Context) (*nats.Broker, error) { return nats.Open(ctx, url) })
}

func TestConformance(t *testing.T) {
	url := startServer(t, true)
	conformance.Broker(t, func(t *testing.T) backend.Broker { return open(t, url) })
}

func TestConnectRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = nats.Open(t.Context(), "nats://u:s3cret@"+addr)
	want := "nats: cannot connect to nats://u:xxxxx@" + addr + ": no server answers (connection refused); start one with 'iobench services up nats' or pass --nats-url"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got %v\nwant %s", err, want)
	}
}

func TestJetStreamDisabled(t *testing.T) {
	url := startServer(t, false)
	_, err := nats.Open(t.Context(), url)
	if err == nil || !strings.Contains(err.Error(), "JetStream is not enabled") {
		t.Fatalf("error = %v, want JetStream is not enabled", err)
	}
}

func TestExchangeUnsupported(t *testing.T) {
	b := open(t, startServer(t, true))
	defer b.Close()
	_, err := b.Publisher(t.Context(), backend.PublisherConfig{Queue: "q", Exchange: "x"})
	if err == nil || !strings.Contains(err.Error(), backend.ErrUnsupported.Error()) {
		t.Fatalf("error = %v, want ErrUnsupported", err)
	}
}

// TestBrokerCloseEndsConsumer checks that a connection closed under a consumer closes its
// Deliveries with an error saying why.
func TestBrokerCloseEndsConsumer(t *testing.T) {
	b := open(t, startServer(t, true))
	ctx := t.Context()
	if err := b.DeclareQueue(ctx, backend.Queue{Name: "loss"}); err != nil {
		t.Fatal(err)
	}
	c, err := b.Consumer(ctx, backend.ConsumerConfig{Queue: "loss", Prefetch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range c.Deliveries() {
	}
	if err := backend.ConsumerErr(c); err == nil {
		t.Fatal("Err after the connection closed = nil, want the cause")
	}
}

// TestAsyncPublishFailureReported checks that Close reports asynchronous publishes no stream
// took.
func TestAsyncPublishFailureReported(t *testing.T) {
	b := open(t, startServer(t, true))
	defer b.Close()
	p, err := b.Publisher(t.Context(), backend.PublisherConfig{Queue: "nowhere"})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Publish(t.Context(), []byte("x"))
	if err := p.Close(); err == nil {
		t.Fatal("Close after publishing to a subject no stream takes: no error")
	}
}

// TestServerRestart restarts the server under a consumer of a durable queue: the client
// reconnects on its own and the consumer goes on receiving.
func TestServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the client to reconnect")
	}
	dir := t.TempDir()
	s := runServer(t, -1, dir, true)
	port := s.Addr().(*net.TCPAddr).Port
	b := open(t, s.ClientURL())
	defer b.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := b.DeclareQueue(ctx, backend.Queue{Name: "restart", Durable: true}); err != nil {
		t.Fatal(err)
	}
	c, err := b.Consumer(ctx, backend.ConsumerConfig{Queue: "restart", Prefetch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	s.Shutdown()
	s.WaitForShutdown()
	runServer(t, port, dir, true)

	p, err := b.Publisher(ctx, backend.PublisherConfig{Queue: "restart", Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Publishing fails until the client has reconnected; each try waits for its PubAck.
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		err := p.Publish(pctx, []byte("after restart"))
		pcancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("publish after restart: %v", err)
		}
	}
	select {
	case d, ok := <-c.Deliveries():
		if !ok {
			t.Fatalf("Deliveries closed after restart: %v", backend.ConsumerErr(c))
		}
		if string(d.Body()) != "after restart" {
			t.Fatalf("got %q", d.Body())
		}
		if err := d.Ack(); err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("no delivery after the restart")
	}
}
