package publish

import (
	"github.com/iobench/iobench/internal/impls/gopublisher"

	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/fail"
)

// ErrBadInput is matched (errors.Is) by errors the user must fix (flags, an unreachable broker,
// an impl that cannot be installed); the CLI exits 2 for them.
var ErrBadInput = fail.ErrBadInput

// ErrVerify is matched by the error of a run whose broker count or consumers found messages
// lost or duplicated; the CLI exits 1.
var ErrVerify = errors.New("verification failed")

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// Defaults.
const (
	DefaultQueue        = "iobench.publish"
	DefaultCount        = 100000
	DefaultSize         = 100
	DefaultPrefetch     = 1000
	DefaultDrainTimeout = 30 * time.Second
)

// Config is one run of the built-in Go publisher.
type Config struct {
	URL             string        // AMQP URL of the broker
	Queue           string        // queue to publish to (default exchange, routing key = queue)
	Publishers      int           // -P: concurrent publishers
	ShareConnection bool          // one connection, a channel per publisher; default a connection each
	Persistent      bool          // delivery mode 2
	Confirm         int           // publisher confirms with at most Confirm outstanding per publisher; 0 = off
	QueueDurable    bool          // declare the queue durable
	Body            string        // gopublisher.BodyBinary, BodySeed or BodySeedMin
	Size            int           // body size for gopublisher.BodyBinary, at least its HeaderSize
	Count           int64         // -n: messages in all, split evenly (remainder to the first publishers); 0 with Duration
	Duration        time.Duration // -d: publish for this long instead of Count
	Consumers       int           // consumers reading the queue during the run (0: publish only, as the seed)
	Prefetch        int           // consumers' basic.qos
	DrainTimeout    time.Duration // how long the broker may take to count the last messages
	KeepQueue       bool          // leave the queue and its messages after the run
	Inject          []string      // --inject (an impl's run only), as inject.ParseAll reads them

	Command     []string          // the exact command line, for the record
	Versions    map[string]string // service versions, for the record
	Broker      string            // redacted broker URL and kind, for the record
	BrokerRoots func() []int      // the roots of RabbitMQ's process trees, for its cost; nil when unknown
	Log         *slog.Logger      // nil is quiet
	Progress    io.Writer         // a terminal for a live status line; nil draws nothing
}

// DefaultConfig returns the defaults of `iobench publish`.
func DefaultConfig() Config {
	return Config{
		Queue: DefaultQueue, Publishers: 1, Body: gopublisher.BodyBinary, Size: DefaultSize, Count: DefaultCount,
		Prefetch: DefaultPrefetch, DrainTimeout: DefaultDrainTimeout,
	}
}

// Check reports the first problem of c as a one-line ErrBadInput error with what to do.
func (c *Config) Check() error {
	switch {
	case c.Publishers <= 0:
		return badInput("-P %d: need at least one publisher; use -P 1 or more", c.Publishers)
	case c.Publishers > 10000:
		return badInput("-P %d: too many publishers for one broker; use at most 10000", c.Publishers)
	case c.Confirm < 0:
		return badInput("--confirm %d: use 0 for no confirms or N > 0 for confirms with N outstanding", c.Confirm)
	case c.Body != gopublisher.BodyBinary && c.Body != gopublisher.BodySeed && c.Body != gopublisher.BodySeedMin:
		return badInput("--body %q: use binary, seed or seed-min", c.Body)
	case c.Body == gopublisher.BodyBinary && c.Size < gopublisher.HeaderSize:
		return badInput("--size %d: below the %d-byte bookkeeping header (sequence number and send time); use --size %d or more",
			c.Size, gopublisher.HeaderSize, gopublisher.HeaderSize)
	case c.Body == gopublisher.BodyBinary && c.Size > 128<<20:
		return badInput("--size %d: messages above 128 MiB are refused by RabbitMQ; use a smaller size", c.Size)
	case c.Count < 0:
		return badInput("-n %d: use a positive message count", c.Count)
	case c.Count > 0 && c.Duration > 0:
		return badInput("-n and -d both given; use one: a message count or a duration")
	case c.Count == 0 && c.Duration == 0:
		return badInput("neither -n nor -d; give a message count (-n 100000) or a duration (-d 10s)")
	case c.Count > 0 && c.Count < int64(c.Publishers):
		return badInput("-n %d with -P %d: fewer messages than publishers; raise -n or lower -P", c.Count, c.Publishers)
	case c.Consumers < 0:
		return badInput("--consumers %d: use 0 (publish only) or more", c.Consumers)
	case c.Consumers > 0 && c.Prefetch <= 0:
		return badInput("--prefetch %d: consumers need a prefetch of 1 or more", c.Prefetch)
	case c.Queue == "" || len(c.Queue) > 255:
		return badInput("--queue %q: give a queue name of 1 to 255 bytes", c.Queue)
	case strings.HasPrefix(c.Queue, "amq."):
		return badInput("--queue %q: names starting with amq. are reserved by the broker; choose another", c.Queue)
	case c.Persistent && !c.QueueDurable:
		return badInput("--persistent without --queue-durable: persistent messages in a non-durable queue are lost on restart; add --queue-durable")
	case c.URL == "":
		return badInput("no broker URL; pass --amqp-url or start one with 'iobench services up rabbitmq'")
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	return nil
}

// describe is the one-line setup shown above the results.
func (c *Config) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d publisher", c.Publishers)
	if c.Publishers != 1 {
		b.WriteString("s")
	}
	if c.ShareConnection {
		b.WriteString(" on one connection")
	} else {
		b.WriteString(", a connection each")
	}
	if c.Persistent {
		b.WriteString(", persistent")
	} else {
		b.WriteString(", transient")
	}
	if c.Confirm > 0 {
		fmt.Fprintf(&b, ", confirms (%d outstanding)", c.Confirm)
	} else {
		b.WriteString(", no confirms")
	}
	switch c.Body {
	case gopublisher.BodyBinary:
		fmt.Fprintf(&b, ", %d B bodies", c.Size)
	case "":
	default:
		fmt.Fprintf(&b, ", %s JSON bodies", c.Body)
	}
	dur := "non-durable"
	if c.QueueDurable {
		dur = "durable"
	}
	fmt.Fprintf(&b, ", queue %s (%s)", c.Queue, dur)
	if c.Consumers > 0 {
		fmt.Fprintf(&b, ", %d consumer(s)", c.Consumers)
	}
	return b.String()
}
