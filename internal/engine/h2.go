package engine

import (
	"bytes"
	"fmt"

	"github.com/iobench/iobench/internal/h2wire"
	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/result"
)

// h2stats counts what one loop's HTTP/2 connections exchanged; the group adds them up.
type h2stats struct {
	sent, recv [h2wire.Types]int64
	resets     [h2wire.Codes + 1]int64 // by code; the last counts codes RFC 9113 does not define
	retried    int64
	allowed    int // the lowest MAX_CONCURRENT_STREAMS below --streams, 0 when none
}

func (s *h2stats) add(o *h2stats) {
	for i := range s.sent {
		s.sent[i] += o.sent[i]
		s.recv[i] += o.recv[i]
	}
	for i := range s.resets {
		s.resets[i] += o.resets[i]
	}
	s.retried += o.retried
	if o.allowed > 0 && (s.allowed == 0 || o.allowed < s.allowed) {
		s.allowed = o.allowed
	}
}

// h2req is a run's request as HTTP/2 frames, built once, their stream ids rewritten for each
// stream: HEADERS with the header block a connection's HPACK state calls for (h2wire.Request:
// plain, first, next; reset is plain after a table size update to 0, for a connection whose
// server shrank its table below what first filled), and the body sent in DATA frames.
type h2req struct {
	plain, first, next, reset []byte
	table                     uint32 // the bytes of the server's table first fills; 0 when first is plain
	body                      []byte
}

// newH2Req builds the request's HEADERS frames.
func newH2Req(cfg *Config) (*h2req, error) {
	req, err := h2wire.FromHTTP1(cfg.Request, cfg.scheme())
	if err != nil {
		return nil, err
	}
	if len(req.Block) >= h2wire.DefaultMaxFrame {
		return nil, fmt.Errorf("the request's headers take %d bytes in HTTP/2, more than one frame holds (%d); send fewer or shorter headers", len(req.Block), h2wire.DefaultMaxFrame)
	}
	if len(req.Body) > 1<<30 {
		return nil, fmt.Errorf("a %d-byte body: HTTP/2 runs send at most 1 GiB per request", len(req.Body))
	}
	flags := h2wire.FlagEndHeaders
	if len(req.Body) == 0 {
		flags |= h2wire.FlagEndStream
	}
	frame := func(block ...[]byte) []byte {
		b := h2wire.AppendHeader(nil, h2wire.Header{Length: uint32(len(bytes.Join(block, nil))), Type: h2wire.TypeHeaders, Flags: flags})
		return append(b, bytes.Join(block, nil)...)
	}
	return &h2req{plain: frame(req.Block), first: frame(req.First), next: frame(req.Next), reset: frame([]byte{0x20}, req.Block), table: req.Table, body: req.Body}, nil
}

// H2Protocol names the HTTP/2 a run speaks, as the record does: "h2" through ALPN over TLS,
// "h2c" with prior knowledge on plain TCP.
func (c *Config) H2Protocol() string {
	if c.TLS != nil {
		return httpload.ALPNH2
	}
	return "h2c"
}

func (c *Config) scheme() string {
	if c.TLS != nil {
		return "https"
	}
	return "http"
}

// record returns the counts as the record's http2 section.
func (s *h2stats) record(cfg *Config) *result.HTTP2 {
	rec := &result.HTTP2{Protocol: cfg.H2Protocol(), Streams: cfg.depth(), StreamsAllowed: s.allowed, FramesSent: map[string]int64{}, FramesReceived: map[string]int64{}, GoAwayRetried: s.retried}
	for i, name := range h2wire.TypeNames {
		if s.sent[i] > 0 {
			rec.FramesSent[name] = s.sent[i]
		}
		if s.recv[i] > 0 {
			rec.FramesReceived[name] = s.recv[i]
		}
	}
	for code, n := range s.resets {
		if n > 0 {
			if rec.Resets == nil {
				rec.Resets = map[string]int64{}
			}
			rec.Resets[h2wire.CodeName(uint32(code))] += n
		}
	}
	return rec
}
