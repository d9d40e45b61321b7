package amqp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/amqp"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/service/servicetest"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

// brokerURL returns the RabbitMQ the tests use ($IOBENCH_AMQP_URL, the one `iobench services
// up` started, or a private one).
func brokerURL(t *testing.T) string {
	t.Helper()
	return servicetest.URL(t, "rabbitmq")
}

func open(t *testing.T, url string) *amqp.Broker {
	t.Helper()
	return conformance.Open(t, func(ctx context.Context) (*amqp.Broker, error) { return amqp.Open(ctx, url) })
}

func TestConformance(t *testing.T) {
	url := brokerURL(t)
	conformance.Broker(t, func(t *testing.T) backend.Broker { return open(t, url) })
}

func TestConnectRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = amqp.Open(t.Context(), "amqp://guest:s3cret@"+addr+"/")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	want := "amqp: cannot connect to amqp://guest:xxxxx@" + addr + "/: connection refused; start one with 'iobench services up rabbitmq' or pass --amqp-url"
	if msg != want {
		t.Fatalf("error\n got %q\nwant %q", msg, want)
	}
}

func TestWrongCredentials(t *testing.T) {
	t.Parallel() // RabbitMQ answers a failed login only after a 3 s delay
	url := brokerURL(t)
	bad := strings.Replace(url, "://", "://nosuchuser:s3cret@", 1)
	if i := strings.Index(url, "@"); i >= 0 {
		bad = url[:strings.Index(url, "://")+3] + "nosuchuser:s3cret" + url[i:]
	}
	_, err := amqp.Open(t.Context(), bad)
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "wrong user or password") || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line naming the cause, without the password", msg)
	}
}

func TestInvalidURLHidesPassword(t *testing.T) {
	for _, u := range []string{"amqp://guest:s3cret@127.0.0.1:bad/", "http://guest:s3cret@127.0.0.1/", "amqp://u:s3cret@[::1"} {
		_, err := amqp.Open(t.Context(), u)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q) error %v: want an error without the password", u, err)
		}
	}
}

// TestConnectionLossEndsConsumer cuts the TCP connection under a consumer, as a broker restart
// does, and checks Deliveries closes with Err saying why, and publishing fails.
func TestConnectionLossEndsConsumer(t *testing.T) {
	url := brokerURL(t)
	p := newProxy(t, url)
	b := open(t, p.url)
	defer b.Close()
	ctx := t.Context()
	q := "iobench-conf-loss-" + time.Now().Format("150405.000000000")
	admin := open(t, url)
	defer admin.Close()
	if err := admin.DeclareQueue(ctx, backend.Queue{Name: q}); err != nil {
		t.Fatal(err)
	}
	defer admin.DeleteQueue(context.Background(), q)
	c, err := b.Consumer(ctx, backend.ConsumerConfig{Queue: q, Prefetch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pub, err := b.Publisher(ctx, backend.PublisherConfig{Queue: q, Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()

	p.sever()
	for range c.Deliveries() {
	}
	err = backend.ConsumerErr(c)
	if err == nil || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("Err after connection loss = %v, want a connection-lost error", err)
	}
	if err := pub.Publish(ctx, []byte("x")); err == nil {
		t.Fatal("Publish after connection loss: no error")
	}
	if _, err := b.Depth(ctx, q); err == nil || errors.Is(err, backend.ErrQueueNotFound) {
		t.Fatalf("Depth after connection loss: %v, want a connection error", err)
	}
}

// proxy forwards TCP connections to a broker until sever cuts them all.
type proxy struct {
	url   string
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, brokerURL string) *proxy {
	t.Helper()
	hostStart := strings.LastIndex(brokerURL, "@") + 1
	if hostStart == 0 {
		hostStart = strings.Index(brokerURL, "://") + 3
	}
	rest := brokerURL[hostStart:]
	upstream, path, _ := strings.Cut(rest, "/")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, url: brokerURL[:hostStart] + l.Addr().String() + "/" + path}
	t.Cleanup(func() { l.Close(); p.sever() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", upstream)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return p
}

func (p *proxy) sever() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestNacksAreCounted fills a queue that rejects publishes beyond 10 messages, so the broker
// nacks the rest: with a window they are counted, without one Publish returns ErrNacked.
func TestNacksAreCounted(t *testing.T) {
	url := brokerURL(t)
	b := open(t, url)
	defer b.Close()
	q := "iobench-conf-nack-" + time.Now().Format("150405.000000000")
	declareRejecting(t, url, q, 10)
	defer b.DeleteQueue(context.Background(), q)
	ctx := t.Context()

	p, err := b.Publisher(ctx, backend.PublisherConfig{Queue: q, Confirm: true, Window: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 50 {
		if err := p.Publish(ctx, []byte("x")); err != nil {
			t.Fatalf("Publish #%d with a window: %v", i, err)
		}
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if c := p.Counts(); c.Written != 50 || c.Acked != 10 || c.Nacked != 40 {
		t.Fatalf("counts %+v, want 50 written, 10 acked, 40 nacked", c)
	}

	each, err := b.Publisher(ctx, backend.PublisherConfig{Queue: q, Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer each.Close()
	if err := each.Publish(ctx, []byte("x")); !errors.Is(err, amqp.ErrNacked) {
		t.Fatalf("Publish to a full queue without a window: %v, want ErrNacked", err)
	}
	if c := each.Counts(); c.Written != 1 || c.Nacked != 1 {
		t.Fatalf("counts %+v, want 1 written and nacked", c)
	}
}

// declareRejecting declares queue q with at most limit messages, the broker nacking publishes
// beyond (x-overflow reject-publish), which backend.Queue cannot ask for.
func declareRejecting(t *testing.T, url, q string, limit int) {
	t.Helper()
	conn, err := amqp091.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	args := amqp091.Table{"x-max-length": int32(limit), "x-overflow": "reject-publish"}
	if _, err := ch.QueueDeclare(q, false, false, false, false, args); err != nil {
		t.Fatal(err)
	}
}
