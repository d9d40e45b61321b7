package backend

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Options tunes how a backend connects, beyond what its URL says. Each backend reads the fields
// that apply to it and ignores the others.
type Options struct {
	// MaxConns is the connection pool size where the backend pools connections (PostgreSQL
	// unless the URL sets pool_max_conns, Memcached; Redis, whose other commands share one
	// pipelined connection, keeps that many idle for blocking pops); 0 is the backend's default.
	MaxConns int
	// QueueName names a queue inside its store: the key of a Redis list. ZeroMQ, whose endpoint
	// is the queue, ignores it.
	QueueName string
}

// OpenFunc connects to the service at rawURL, whose scheme is one its backend registered (already
// lower-cased).
type OpenFunc[T any] func(ctx context.Context, rawURL string, opts Options) (T, error)

// Registry maps URL schemes to the backends that open one capability. Each backend package
// registers its schemes in its own init; importing the package is what makes it available.
// The registries are safe for concurrent use.
type Registry[T any] struct {
	kind string // names the capability in messages: "broker", "database", ...

	mu       sync.RWMutex
	byScheme map[string]OpenFunc[T]
}

// The registries, one per capability.
var (
	Brokers    = &Registry[Broker]{kind: "broker"}
	Databases  = &Registry[SQL]{kind: "database"}
	KVs        = &Registry[KV]{kind: "key-value store"}
	WorkQueues = &Registry[WorkQueue]{kind: "work queue"}
)

// Register makes open the opener of URLs with the given schemes. Schemes are case-insensitive.
// Like database/sql.Register it panics on no scheme or a scheme already taken: both are
// programming errors that show at start-up.
func (r *Registry[T]) Register(open OpenFunc[T], schemes ...string) {
	if open == nil || len(schemes) == 0 {
		panic("backend: Register of a " + r.kind + " backend without an opener or schemes")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byScheme == nil {
		r.byScheme = map[string]OpenFunc[T]{}
	}
	for _, s := range schemes {
		s = strings.ToLower(s)
		if s == "" || s != Scheme(s+":") {
			panic(fmt.Sprintf("backend: invalid %s URL scheme %q", r.kind, s))
		}
		if _, dup := r.byScheme[s]; dup {
			panic(fmt.Sprintf("backend: %s URL scheme %q registered twice", r.kind, s))
		}
		r.byScheme[s] = open
	}
}

// Schemes returns the registered schemes, sorted.
func (r *Registry[T]) Schemes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.byScheme))
	for s := range r.byScheme {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Open connects through the backend registered for rawURL's scheme, or returns a one-line error
// that lists the schemes this build supports. The error never echoes the URL, which may hold a
// password.
func (r *Registry[T]) Open(ctx context.Context, rawURL string, opts Options) (T, error) {
	s := Scheme(rawURL)
	r.mu.RLock()
	open := r.byScheme[s]
	r.mu.RUnlock()
	if s == "" || open == nil {
		var zero T
		return zero, r.unknown(s)
	}
	return open(ctx, s+rawURL[len(s):], opts)
}

// unknown is the error for a missing or unsupported scheme.
func (r *Registry[T]) unknown(scheme string) error {
	schemes := r.Schemes()
	if len(schemes) == 0 {
		return fmt.Errorf("open: no %s backend is linked into this build; import one (see internal/backend/open)", r.kind)
	}
	for i, s := range schemes {
		schemes[i] = s + "://"
	}
	if scheme != "" {
		return fmt.Errorf("open: unsupported %s URL scheme %q; use one of %s", r.kind, scheme, strings.Join(schemes, ", "))
	}
	return fmt.Errorf("open: %s URL has no scheme; use one of %s", r.kind, strings.Join(schemes, ", "))
}

// Scheme returns the lower-cased scheme of rawURL (RFC 3986: a letter, then letters, digits,
// '+', '-' or '.', before the first ':'), or "" when it has none.
func Scheme(rawURL string) string {
	s, _, ok := strings.Cut(rawURL, ":")
	if !ok || s == "" {
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
