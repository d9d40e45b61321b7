package open

import (
	"context"
	"fmt"
	"strings"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/amqp"
	"github.com/iobench/iobench/internal/backend/nats"
	"github.com/iobench/iobench/internal/backend/postgres"
	"github.com/iobench/iobench/internal/backend/sqlite"
)

// BrokerSchemes lists the URL schemes Broker accepts.
var BrokerSchemes = []string{"amqp", "amqps", "nats"}

// SQLSchemes lists the URL schemes SQL accepts.
var SQLSchemes = []string{"postgres", "postgresql", "sqlite"}

// Broker connects to the message broker named by rawURL.
func Broker(ctx context.Context, rawURL string) (backend.Broker, error) {
	rawURL = lowerScheme(rawURL)
	switch scheme(rawURL) {
	case "amqp", "amqps":
		return amqp.Open(ctx, rawURL)
	case "nats":
		return nats.Open(ctx, rawURL)
	}
	return nil, unknown("broker", rawURL, BrokerSchemes)
}

// Option tunes SQL.
type Option func(*options)

type options struct {
	maxConns int
}

// MaxConns sets the connection pool size when the URL does not (PostgreSQL's pool_max_conns);
// SQLite, with its single writer, ignores it.
func MaxConns(n int) Option {
	return func(o *options) { o.maxConns = n }
}

// SQL opens the database named by rawURL.
func SQL(ctx context.Context, rawURL string, opts ...Option) (backend.SQL, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rawURL = lowerScheme(rawURL)
	switch scheme(rawURL) {
	case "postgres", "postgresql":
		return postgres.Open(ctx, rawURL, postgres.Options{MaxConns: o.maxConns})
	case "sqlite":
		return sqlite.Open(ctx, rawURL)
	}
	return nil, unknown("database", rawURL, SQLSchemes)
}

// scheme returns the lower-cased scheme of rawURL, or "" when it has none.
func scheme(rawURL string) string {
	s, _, ok := strings.Cut(rawURL, ":")
	if !ok {
		return ""
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return ""
		}
	}
	return strings.ToLower(s)
}

// lowerScheme lower-cases the scheme of rawURL: URL schemes are case-insensitive, but not
// every driver treats them so.
func lowerScheme(rawURL string) string {
	if s := scheme(rawURL); s != "" {
		return s + rawURL[len(s):]
	}
	return rawURL
}

// unknown is the one-line error for an unsupported scheme; it never echoes the URL, which may
// hold a password.
func unknown(kind, rawURL string, schemes []string) error {
	list := make([]string, len(schemes))
	for i, s := range schemes {
		list[i] = s + "://"
	}
	if s := scheme(rawURL); s != "" {
		return fmt.Errorf("open: unsupported %s URL scheme %q; use one of %s", kind, s, strings.Join(list, ", "))
	}
	return fmt.Errorf("open: %s URL has no scheme; use one of %s", kind, strings.Join(list, ", "))
}
