package httpbench

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpload"
)

// Options are the user's choices, as read from flags or a scenario.
type Options struct {
	URL         string
	Threads     int // 0 = min(2, Connections), as wrk's default of 2
	Connections int
	Duration    time.Duration
	Requests    int64
	Rate        float64
	RateSet     bool   // -R was given (so -R 0 is an error, not "closed loop")
	Arrivals    string // an open loop's spacing: engine.ArrivalsEven ("" too) or engine.ArrivalsPoisson
	// Seed draws Poisson arrivals when SeedSet (--seed); else each run draws a new one (NewSeed).
	Seed         uint64
	SeedSet      bool
	Warmup       time.Duration
	Timeout      time.Duration
	NoKeepAlive  bool
	Method       string
	Headers      []string
	Body         []byte
	ExpectStatus []int
	ExpectBody   string
	TLS          httpload.TLSOptions // https only: --insecure, --cacert, --sni
	// Engine is "loop", "goroutine" or "" (the event loop where it can run); see engine.Config.
	Engine string
	// Pipeline is the HTTP/1.1 requests each connection keeps in flight (--pipeline; 0 = 1);
	// PipelineSet says it was given, so that --pipeline 0 is an error.
	Pipeline    int
	PipelineSet bool
	// HTTP2 (--http2: h2 over https:// through ALPN) and H2C (--http2-prior-knowledge: h2c on
	// http://) speak HTTP/2 with Streams (--streams; StreamsSet says it was given) per connection.
	HTTP2, H2C bool
	Streams    int
	StreamsSet bool
}

// NewSeed returns a seed for a run's Poisson arrivals: each run draws new ones, and its record
// keeps the seed (the seed parameter) so that --seed can draw them again. Seeds stay below 2^32,
// which a JSON number holds exactly.
func NewSeed() uint64 { return rand.Uint64N(1 << 32) }

// fdReserve is how many descriptors beyond the connections iobench keeps for itself.
const fdReserve = 64

// Config checks o and builds the engine configuration. Errors are one line with a hint.
func (o Options) Config() (engine.Config, error) {
	if o.RateSet && o.Rate <= 0 {
		return engine.Config{}, errors.New("rate must be positive (-R 1000); leave -R out for a closed loop")
	}
	if o.PipelineSet && o.Pipeline < 1 {
		return engine.Config{}, fmt.Errorf("--pipeline %d is out of range; give 1 to %d requests in flight per connection", o.Pipeline, engine.MaxDepth)
	}
	if o.StreamsSet && o.Streams < 1 {
		return engine.Config{}, fmt.Errorf("--streams %d is out of range; give 1 to %d streams per connection", o.Streams, engine.MaxDepth)
	}
	target, err := httpload.ParseURL(o.URL)
	if err != nil {
		return engine.Config{}, err
	}
	spec := httpload.RequestSpec{Method: o.Method, Target: target, Body: o.Body, Close: o.NoKeepAlive}
	if spec.Method == "" {
		spec.Method = "GET"
	}
	if !isToken(spec.Method) {
		return engine.Config{}, fmt.Errorf("-m %q is not an HTTP method: use letters, digits and !#$%%&'*+-.^_`|~ only, e.g. -m POST", spec.Method)
	}
	for _, h := range o.Headers {
		hd, err := httpload.ParseHeader(h)
		if err != nil {
			return engine.Config{}, err
		}
		spec.Headers = append(spec.Headers, hd)
	}
	if err := o.checkProtocol(target); err != nil {
		return engine.Config{}, err
	}
	tlsCfg, err := o.tlsConfig(target)
	if err != nil {
		return engine.Config{}, err
	}
	cfg := engine.Config{
		Target:      target,
		TLS:         tlsCfg,
		Request:     spec.Build(),
		Connections: o.Connections,
		Threads:     o.Threads,
		Duration:    o.Duration,
		Requests:    o.Requests,
		Rate:        o.Rate,
		Arrivals:    o.Arrivals,
		Warmup:      o.Warmup,
		Timeout:     o.Timeout,
		KeepAlive:   !o.NoKeepAlive,
		Expect:      engine.Expect{Status: o.ExpectStatus},
		Engine:      o.Engine,
		Pipeline:    o.Pipeline,
		HTTP2:       o.HTTP2 || o.H2C,
	}
	if o.StreamsSet {
		cfg.Streams = o.Streams
	}
	if o.SeedSet && o.Arrivals != engine.ArrivalsPoisson {
		return engine.Config{}, errors.New("--seed draws Poisson arrivals; add --arrivals poisson, or drop --seed")
	}
	if cfg.Arrivals == engine.ArrivalsPoisson {
		cfg.Seed = o.Seed
		if !o.SeedSet {
			cfg.Seed = NewSeed()
		}
	}
	if cfg.Threads == 0 {
		cfg.Threads = max(1, min(2, cfg.Connections))
	}
	if o.ExpectBody != "" {
		re, err := regexp.Compile(o.ExpectBody)
		if err != nil {
			return engine.Config{}, fmt.Errorf("--expect-body %q is not a valid regular expression: %v", o.ExpectBody, err)
		}
		cfg.Expect.Body = re
	}
	for _, s := range o.ExpectStatus {
		if s < 100 || s > 999 {
			return engine.Config{}, fmt.Errorf("--expect-status %d is not an HTTP status; use codes such as 200,204", s)
		}
	}
	if o.Engine != "" && o.Engine != engine.EngineLoop && o.Engine != engine.EngineGoroutine {
		return engine.Config{}, fmt.Errorf("--engine %q is not known; use --engine loop (epoll, the default) or --engine goroutine", o.Engine)
	}
	if err := cfg.Validate(); err != nil {
		return engine.Config{}, err
	}
	return cfg, checkFiles(cfg.Connections)
}

// checkProtocol matches the HTTP/2 flags to the URL's scheme: --http2 negotiates h2 over TLS,
// --http2-prior-knowledge speaks h2c on plain TCP; there is no h2c Upgrade.
func (o Options) checkProtocol(t httpload.Target) error {
	switch {
	case o.HTTP2 && o.H2C:
		return errors.New("--http2 (https://, ALPN h2) and --http2-prior-knowledge (http://, h2c) do not mix; give the one that matches the URL")
	case o.HTTP2 && !t.TLS:
		return errors.New("--http2 negotiates h2 over TLS and needs an https:// URL; for h2c on http:// use --http2-prior-knowledge")
	case o.H2C && t.TLS:
		return errors.New("--http2-prior-knowledge speaks h2c on plain TCP and needs an http:// URL; for https:// use --http2")
	}
	return nil
}

// tlsConfig returns the TLS configuration of an https target, nil for http; TLS options given
// for an http URL, or two that contradict each other, are an error.
func (o Options) tlsConfig(t httpload.Target) (*tls.Config, error) {
	if !t.TLS {
		if o.TLS.Set() {
			return nil, errors.New("--insecure, --cacert and --sni apply to https:// URLs only; drop them or use https://")
		}
		return nil, nil
	}
	if o.TLS.Insecure && o.TLS.CAFile != "" {
		return nil, errors.New("--insecure skips the verification that --cacert is for; give one of them")
	}
	cfg, err := httpload.TLSConfig(t, o.TLS)
	if err != nil {
		return nil, fmt.Errorf("--cacert: %v; give a PEM file holding the server's CA certificate", err)
	}
	if o.HTTP2 {
		cfg = httpload.OfferH2(cfg)
	}
	return cfg, nil
}

// MaxConnections is how many connections the open-file limit holds beside iobench's own
// descriptors; 0 when the limit cannot be read.
func MaxConnections() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur <= fdReserve {
		return 0
	}
	return int(min(lim.Cur-fdReserve, 1<<30))
}

// checkFiles fails when the open-file limit cannot hold every connection.
func checkFiles(conns int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil
	}
	if uint64(conns)+fdReserve > lim.Cur {
		return fmt.Errorf("%d connections need %d open files but the limit is %d; raise it (ulimit -n %d) or use fewer connections",
			conns, conns+fdReserve, lim.Cur, conns+fdReserve)
	}
	return nil
}

// Probe checks, before any load, that the target's host resolves, its port accepts a connection
// and, for https (tlsCfg not nil), that the TLS handshake succeeds: a certificate that cannot be
// verified is an error saying to give its CA with --cacert or to skip the check with --insecure.
// The probe's session is not cached, so the run's first handshakes are full ones. For an HTTP/2
// run (tlsCfg offers h2 alone: httpload.OfferH2) it offers h2 and http/1.1, and a server that
// does not choose h2 is an error saying what it chose.
func Probe(ctx context.Context, t httpload.Target, tlsCfg *tls.Config, timeout time.Duration) error {
	host, _, err := net.SplitHostPort(t.Addr)
	if err != nil {
		return fmt.Errorf("bad address %q: %v", t.Addr, err)
	}
	if net.ParseIP(host) == nil {
		if _, err := net.DefaultResolver.LookupHost(ctx, host); err != nil {
			return fmt.Errorf("unknown host %q: %v; check the URL", host, unwrapDNS(err))
		}
	}
	h2 := tlsCfg != nil && slices.Equal(tlsCfg.NextProtos, []string{httpload.ALPNH2})
	if tlsCfg != nil {
		tlsCfg = tlsCfg.Clone()
		tlsCfg.ClientSessionCache = nil
		if h2 {
			tlsCfg.NextProtos = []string{httpload.ALPNH2, "http/1.1"}
		}
	}
	c, err := httpload.DialTLS(ctx, t.Addr, tlsCfg, timeout)
	var name x509.HostnameError
	switch {
	case errors.As(err, &name):
		return fmt.Errorf("%s: %v; give the name it was issued for with --sni NAME, or skip the check with --insecure", t.Addr, name.Error())
	case httpload.Untrusted(err):
		return fmt.Errorf("%s: the server's certificate is not trusted (%v); give its CA with --cacert FILE, or skip the check with --insecure", t.Addr, rootCause(err))
	case h2 && err != nil && rootCause(err).Error() == noALPN:
		return fmt.Errorf("%s refused h2 and http/1.1 in ALPN (%v); is it an HTTP server?", t.Addr, rootCause(err))
	case err != nil && tlsCfg != nil && isHandshake(err):
		return fmt.Errorf("TLS handshake with %s failed: %v; is it an https server?", t.Addr, rootCause(err))
	case err != nil:
		return fmt.Errorf("cannot connect to %s: %v; is the server running?", t.Addr, rootCause(err))
	}
	defer c.Close()
	if got := c.Setup().Protocol; h2 && got != httpload.ALPNH2 {
		return fmt.Errorf("%s does not speak HTTP/2 over TLS: offered h2 and http/1.1 in ALPN, it chose %s; drop --http2 to load it over HTTP/1.1", t.Addr, cmp.Or(strconv.Quote(got), "none"))
	}
	return nil
}

// noALPN is the text of the TLS alert no_application_protocol, the server's answer to protocols
// it serves none of (crypto/tls's own alert type, under a net.OpError, is not exported).
var noALPN = tls.AlertError(120).Error()

// isHandshake reports whether a failed dial got as far as the TLS handshake (the TCP connect
// succeeded).
func isHandshake(err error) bool {
	var op *net.OpError
	return !errors.As(err, &op) || op.Op != "dial"
}

func unwrapDNS(err error) error {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return errors.New(dns.Err)
	}
	return err
}

func rootCause(err error) error {
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), which a method must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}
