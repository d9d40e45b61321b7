package amqp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/backend"
)

// handshakeTimeout bounds the TCP connect plus the AMQP (and TLS) handshake when the context
// passed to Open has no earlier deadline.
const handshakeTimeout = 10 * time.Second

// Broker is one AMQP connection to a broker. It implements backend.Broker; its methods are
// safe for concurrent use.
type Broker struct {
	conn     *amqp091.Connection
	sock     *corkConn // the socket under conn (under TLS with amqps)
	redacted string    // the URL with its password masked, for messages

	mu    sync.Mutex       // guards admin
	admin *amqp091.Channel // channel for declare, delete and depth; reopened after a channel error

	lost atomic.Pointer[amqp091.Error] // why the connection closed, once it has
}

var _ backend.Broker = (*Broker)(nil)

// Open connects to the AMQP broker at rawURL (amqp:// or amqps://). The context bounds the
// connect and handshake only.
func Open(ctx context.Context, rawURL string) (*Broker, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("amqp: invalid URL (not shown, it may hold a password): %w", urlReason(err))
	}
	redacted := u.Redacted()
	if !slices.Contains(schemes, u.Scheme) {
		return nil, fmt.Errorf("amqp: URL %s must start with amqp:// or amqps://", redacted)
	}
	var sock *corkConn
	cfg := amqp091.Config{
		Properties: amqp091.NewConnectionProperties(),
		Dial:       dialer(ctx, &sock),
	}
	cfg.Properties.SetClientConnectionName("iobench")
	conn, err := amqp091.DialConfig(rawURL, cfg)
	if err != nil {
		return nil, connectErr(redacted, u, err)
	}
	b := &Broker{conn: conn, sock: sock, redacted: redacted}
	closed := conn.NotifyClose(make(chan *amqp091.Error, 1))
	go func() {
		if e, ok := <-closed; ok {
			b.lost.Store(e)
		}
	}()
	return b, nil
}

// dialer returns an amqp091 dial function that honours ctx for the TCP connect and puts a
// deadline on the handshake (amqp091 clears it once the connection is open); the socket it
// dials, corkable, goes to *sock.
func dialer(ctx context.Context, sock **corkConn) func(network, addr string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		deadline := time.Now().Add(handshakeTimeout)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		d := net.Dialer{Deadline: deadline}
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if err := c.SetDeadline(deadline); err != nil {
			_ = c.Close()
			return nil, err
		}
		*sock = &corkConn{Conn: c}
		return *sock, nil
	}
}

// connectErr turns a dial or handshake failure into one line: what failed, why, what to do.
func connectErr(redacted string, u *url.URL, err error) error {
	const start = "start one with 'iobench services up rabbitmq' or pass --amqp-url"
	why, hint := err.Error(), start
	var aerr *amqp091.Error
	var dnsErr *net.DNSError
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.As(err, &dnsErr):
		why, hint = fmt.Sprintf("unknown host %q", dnsErr.Name), "check the host in --amqp-url"
	case errors.As(err, &nerr) && nerr.Timeout():
		why = "timed out"
	case errors.Is(err, amqp091.ErrCredentials):
		why, hint = "access refused (wrong user or password)", "check the user and password in --amqp-url"
	case errors.Is(err, amqp091.ErrVhost):
		why, hint = fmt.Sprintf("no access to vhost %q", vhost(u)), "create the vhost or fix it in --amqp-url"
	case errors.As(err, &aerr) && aerr.Code == amqp091.AccessRefused:
		why, hint = "access refused: "+aerr.Reason, "check the user and password in --amqp-url"
	case errors.As(err, &aerr) && aerr.Code == amqp091.NotAllowed:
		why, hint = fmt.Sprintf("vhost %q not allowed: %s", vhost(u), aerr.Reason), "create the vhost or fix it in --amqp-url"
	}
	return &backend.ConnectError{Msg: fmt.Sprintf("amqp: cannot connect to %s: %s; %s", redacted, why, hint), Err: err}
}

// vhost returns the virtual host named by u the way amqp091 reads it ("/" when absent).
func vhost(u *url.URL) string {
	if u.Path == "" || u.Path == "/" {
		return "/"
	}
	return u.Path[1:]
}

// urlReason strips the URL itself from a url.Parse error so a password is never printed.
func urlReason(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

// adminChannel returns the shared administrative channel, opening a new one if the last was
// closed (a passive declare of a missing queue closes it). Callers hold b.mu.
func (b *Broker) adminChannel() (*amqp091.Channel, error) {
	if b.admin != nil && !b.admin.IsClosed() {
		return b.admin, nil
	}
	ch, err := b.conn.Channel()
	if err != nil {
		return nil, b.wrap("open channel", err)
	}
	b.admin = ch
	return ch, nil
}

// wrap adds context to err and, when the connection is gone, says so and why.
func (b *Broker) wrap(op string, err error) error {
	if !b.conn.IsClosed() {
		return fmt.Errorf("amqp: %s: %w", op, err)
	}
	if lost := b.lost.Load(); lost != nil {
		return fmt.Errorf("amqp: %s: connection lost (%s): %w", op, lost.Reason, err)
	}
	return fmt.Errorf("amqp: %s: connection closed: %w", op, err)
}

// withAdmin runs fn on the shared administrative channel, under b.mu, unless ctx has ended.
func (b *Broker) withAdmin(ctx context.Context, fn func(*amqp091.Channel) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ch, err := b.adminChannel()
	if err != nil {
		return err
	}
	return fn(ch)
}

// brokerError returns err as the broker's *amqp091.Error when it carries code.
func brokerError(err error, code int) (*amqp091.Error, bool) {
	var aerr *amqp091.Error
	return aerr, errors.As(err, &aerr) && aerr.Code == code
}

// DeclareQueue declares a classic queue; declaring an existing queue with the same durability
// is a no-op.
func (b *Broker) DeclareQueue(ctx context.Context, q backend.Queue) error {
	return b.withAdmin(ctx, func(ch *amqp091.Channel) error {
		_, err := ch.QueueDeclare(q.Name, q.Durable, false, false, false, nil)
		if err == nil {
			return nil
		}
		if aerr, ok := brokerError(err, amqp091.PreconditionFailed); ok {
			return fmt.Errorf("amqp: queue %q already exists with other settings (%s); delete it or declare it as it is", q.Name, aerr.Reason)
		}
		return b.wrap(fmt.Sprintf("declare queue %q", q.Name), err)
	})
}

// DeleteQueue deletes a queue and its messages; a missing queue is not an error.
func (b *Broker) DeleteQueue(ctx context.Context, name string) error {
	return b.withAdmin(ctx, func(ch *amqp091.Channel) error {
		_, err := ch.QueueDelete(name, false, false, false)
		if _, missing := brokerError(err, amqp091.NotFound); err == nil || missing {
			return nil
		}
		return b.wrap(fmt.Sprintf("delete queue %q", name), err)
	})
}

// Depth returns the queue's "messages ready" count from a passive queue.declare: messages
// published and not yet delivered to a consumer (delivered, unacked ones are not counted).
func (b *Broker) Depth(ctx context.Context, name string) (int64, error) {
	var depth int64
	err := b.withAdmin(ctx, func(ch *amqp091.Channel) error {
		q, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
		if err == nil {
			depth = int64(q.Messages)
			return nil
		}
		if _, missing := brokerError(err, amqp091.NotFound); missing {
			return fmt.Errorf("amqp: queue %q: %w", name, backend.ErrQueueNotFound)
		}
		return b.wrap(fmt.Sprintf("depth of queue %q", name), err)
	})
	return depth, err
}

// Close closes the connection and with it every Publisher and Consumer opened from it.
func (b *Broker) Close() error {
	if b.conn.IsClosed() {
		return nil
	}
	if err := b.conn.Close(); err != nil && !errors.Is(err, amqp091.ErrClosed) {
		return fmt.Errorf("amqp: close: %w", err)
	}
	return nil
}
