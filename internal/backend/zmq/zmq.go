package zmq

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/iobench/iobench/internal/backend"
)

// How long a first Push retries to connect while nothing is bound at the endpoint.
const (
	dialRetry   = 100 * time.Millisecond
	dialRetries = 50
)

// sendTimeout bounds a Push waiting for the peer's buffers to drain.
const sendTimeout = 30 * time.Second

// schemes are the URL schemes Open accepts, each the zmq+ form of a ZeroMQ transport.
var schemes = []string{"zmq+ipc", "zmq+tcp"}

// quiet keeps zmq4's own log lines (a peer that failed the handshake) off stderr.
var quiet = log.New(io.Discard, "", 0)

// Queue is a PUSH/PULL pipe at one endpoint. It implements backend.WorkQueue and is safe for
// concurrent use.
type Queue struct {
	ctx    context.Context // the sockets' context, ended by Close
	cancel context.CancelFunc

	mu       sync.Mutex
	endpoint string        // ipc://... or tcp://...; a tcp port 0 becomes the bound one
	push     zmq4.Socket   // connected at the first Push
	pull     zmq4.Socket   // bound at the first Pop or Listen
	msgs     chan []byte   // from the PULL socket to Pop
	recvDone chan struct{} // closed when the receiving goroutine has returned

	received atomic.Int64
}

var _ backend.WorkQueue = (*Queue)(nil)

// Open returns a Queue for the endpoint rawURL names (zmq+ipc://path or zmq+tcp://host:port). It
// opens no socket yet: Push connects, Pop or Listen binds.
func Open(ctx context.Context, rawURL string) (*Queue, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	endpoint, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithCancel(context.Background())
	return &Queue{ctx: qctx, cancel: cancel, endpoint: endpoint}, nil
}

// parseURL returns the ZeroMQ endpoint of a zmq+ipc:// or zmq+tcp:// URL.
func parseURL(rawURL string) (string, error) {
	scheme, rest, _ := strings.Cut(rawURL, "://")
	transport, ok := strings.CutPrefix(strings.ToLower(scheme), "zmq+")
	if !ok || (transport != "ipc" && transport != "tcp") {
		return "", fmt.Errorf("zmq: URL %q must start with zmq+ipc:// or zmq+tcp://", rawURL)
	}
	if transport == "ipc" {
		if rest == "" {
			return "", fmt.Errorf("zmq: URL %q has no socket path; write zmq+ipc:///tmp/zmq.sock", rawURL)
		}
		return "ipc://" + rest, nil
	}
	u, err := url.Parse("tcp://" + rest)
	if err != nil || u.Port() == "" || u.Path != "" || u.User != nil {
		return "", fmt.Errorf("zmq: URL %q: want zmq+tcp://host:port", rawURL)
	}
	return "tcp://" + u.Host, nil
}

// Endpoint returns the ZeroMQ endpoint of the Queue; after Listen on tcp port 0, the bound one.
func (q *Queue) Endpoint() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.endpoint
}

// Listen binds the PULL socket now rather than at the first Pop, so senders can connect before
// the first Pop; it does nothing when the socket is bound already.
func (q *Queue) Listen() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(context.Background()); err != nil {
		return fmt.Errorf("zmq: listen at %s: %w", q.endpoint, err)
	}
	if q.pull != nil {
		return nil
	}
	s := zmq4.NewPull(q.ctx, zmq4.WithLogger(quiet))
	if err := bind(s, q.endpoint); err != nil {
		_ = s.Close()
		hint := "check the endpoint"
		if errors.Is(err, syscall.EADDRINUSE) {
			hint = "another receiver is bound there; stop it or choose another endpoint"
		}
		return fmt.Errorf("zmq: bind %s: %w; %s", q.endpoint, err, hint)
	}
	if strings.HasPrefix(q.endpoint, "tcp://") {
		q.endpoint = "tcp://" + s.Addr().String()
	}
	q.pull, q.msgs, q.recvDone = s, make(chan []byte), make(chan struct{})
	go q.receive(s)
	return nil
}

// bind binds s at endpoint, first removing an ipc socket file that nothing listens on.
func bind(s zmq4.Socket, endpoint string) error {
	err := s.Listen(endpoint)
	path, ipc := strings.CutPrefix(endpoint, "ipc://")
	if err == nil || !ipc || !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	if c, derr := net.Dial("unix", path); derr == nil {
		_ = c.Close()
		return err // alive: not ours to remove
	}
	if rerr := os.Remove(path); rerr != nil {
		return err
	}
	return s.Listen(endpoint)
}

// receive hands the PULL socket's messages to Pop until the Queue is closed. A receive error
// is one sender going away, which a PULL socket outlives.
func (q *Queue) receive(s zmq4.Socket) {
	defer close(q.recvDone)
	for {
		msg, err := s.Recv()
		if q.ctx.Err() != nil {
			return
		}
		if err != nil {
			continue
		}
		select {
		case q.msgs <- msg.Bytes():
		case <-q.ctx.Done():
			return
		}
	}
}

// Push sends body to the bound PULL socket, connecting the PUSH socket first if needed.
func (q *Queue) Push(ctx context.Context, body []byte) error {
	s, err := q.pusher(ctx)
	if err != nil {
		return err
	}
	if err := s.Send(zmq4.NewMsg(body)); err != nil {
		if q.ctx.Err() != nil {
			err = fmt.Errorf("queue %w", backend.ErrClosed)
		}
		return fmt.Errorf("zmq: push to %s: %w", q.Endpoint(), err)
	}
	return nil
}

// pusher returns the PUSH socket, connecting it at the first call.
func (q *Queue) pusher(ctx context.Context) (zmq4.Socket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(ctx); err != nil {
		return nil, fmt.Errorf("zmq: push to %s: %w", q.endpoint, err)
	}
	if q.push != nil {
		return q.push, nil
	}
	s := zmq4.NewPush(q.ctx, zmq4.WithLogger(quiet), zmq4.WithTimeout(sendTimeout),
		zmq4.WithDialerRetry(dialRetry), zmq4.WithDialerMaxRetries(dialRetries))
	if err := s.Dial(q.endpoint); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("zmq: push to %s: nothing bound there within %s (%w); start the receiver first",
			q.endpoint, dialRetry*dialRetries, err)
	}
	q.push = s
	return s, nil
}

// Pop returns the next message, binding the PULL socket first if needed, and waits up to
// timeout for one.
func (q *Queue) Pop(ctx context.Context, timeout time.Duration) ([]byte, error) {
	if err := q.Listen(); err != nil {
		return nil, err
	}
	select {
	case body := <-q.msgs: // one waiting is taken even with no time to wait
		return q.got(body), nil
	default:
	}
	if timeout <= 0 {
		return nil, q.noMessage(0)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case body := <-q.msgs:
		return q.got(body), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("zmq: pop from %s: %w", q.Endpoint(), ctx.Err())
	case <-q.ctx.Done():
		return nil, fmt.Errorf("zmq: pop from %s: queue %w", q.Endpoint(), backend.ErrClosed)
	case <-t.C:
		return nil, q.noMessage(timeout)
	}
}

// got counts body as received and returns it.
func (q *Queue) got(body []byte) []byte {
	q.received.Add(1)
	return body
}

// noMessage is Pop's error when nothing came within timeout.
func (q *Queue) noMessage(timeout time.Duration) error {
	return fmt.Errorf("zmq: pop from %s: %w (%s)", q.Endpoint(), backend.ErrNoMessage, timeout)
}

// Len is not known to a ZeroMQ socket: it returns an error wrapping backend.ErrUnsupported.
func (q *Queue) Len(ctx context.Context) (int64, error) {
	if err := q.usable(ctx); err != nil {
		return 0, fmt.Errorf("zmq: length of %s: %w", q.Endpoint(), err)
	}
	return 0, fmt.Errorf("zmq: length of %s: %w; count with Received", q.Endpoint(), backend.ErrUnsupported)
}

// Received returns how many messages Pop has returned.
func (q *Queue) Received() int64 { return q.received.Load() }

// usable returns why the Queue may not be used: it is closed or ctx has ended.
func (q *Queue) usable(ctx context.Context) error {
	if q.ctx.Err() != nil {
		return fmt.Errorf("queue %w", backend.ErrClosed)
	}
	return ctx.Err()
}

// Close closes both sockets (the bound ipc socket file is removed) and drops the messages
// received but not popped.
func (q *Queue) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ctx.Err() != nil {
		return nil
	}
	q.cancel()
	var errs []error
	for _, s := range []zmq4.Socket{q.push, q.pull} {
		// A connection its peer closed first (the Queue's own other socket) is no error.
		if s != nil {
			if err := s.Close(); !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
		}
	}
	if q.recvDone != nil {
		<-q.recvDone
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("zmq: close %s: %w", q.endpoint, err)
	}
	return nil
}
