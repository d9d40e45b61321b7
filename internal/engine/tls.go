package engine

import (
	"crypto/tls"

	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// TLSResult is what opening the connections of an https run cost, apart from the requests'
// latency: every connection opened over the whole run (warm-up included); a failed connect or
// handshake is a connect error instead.
type TLSResult struct {
	Handshakes int64            // connections opened
	Resumed    int64            // of them, those whose handshake resumed an earlier session
	Handshake  *stats.Histogram // the TLS handshakes
	Connect    *stats.Histogram // the TCP connects before them
	Last       httpload.Setup   // the last connection's version, cipher suite and ALPN protocol
}

// newTLSResult returns an empty tally: each group keeps one under its lock, and the run's is
// their merge.
func newTLSResult() *TLSResult {
	return &TLSResult{Handshake: stats.NewHistogram(), Connect: stats.NewHistogram()}
}

// opened records a connection the group opened; a plain http run records nothing.
func (g *group) opened(s httpload.Setup) {
	if g.tls == nil || s.Version == 0 {
		return
	}
	g.mu.Lock()
	t := g.tls
	t.Handshakes++
	if s.Resumed {
		t.Resumed++
	}
	t.Handshake.Record(s.Handshake)
	t.Connect.Record(s.Connect)
	t.Last = s
	g.mu.Unlock()
}

// merge adds o (a group's tally, read under its lock) into t.
func (t *TLSResult) merge(o *TLSResult) {
	t.Handshakes += o.Handshakes
	t.Resumed += o.Resumed
	t.Handshake.Merge(o.Handshake)
	t.Connect.Merge(o.Connect)
	if o.Last.Version != 0 {
		t.Last = o.Last
	}
}

// Record returns t as the record's tls section.
func (t *TLSResult) Record() *result.TLS {
	rec := &result.TLS{
		Handshakes: t.Handshakes,
		Resumed:    t.Resumed,
		Protocol:   t.Last.Protocol,
		Handshake:  t.Handshake.Summary(),
		Connect:    t.Connect.Summary(),
	}
	if t.Last.Version != 0 {
		rec.Version = tls.VersionName(t.Last.Version)
		rec.CipherSuite = tls.CipherSuiteName(t.Last.CipherSuite)
	}
	return rec
}
