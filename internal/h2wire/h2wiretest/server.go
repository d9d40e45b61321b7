// Package h2wiretest runs an HTTP/2 server with prior knowledge (h2c), or over TLS (h2), for tests, scripted to do
// what conformance tests need a server to do mid-run: reset streams, send GOAWAY, grant small
// windows, change its SETTINGS and PING. It keeps the HTTP/2 rules a client must follow under
// watch (flow control, the stream limit, acknowledgements) and counts what it saw.
//
// It is built on x/net's Framer, which costs allocations the engine's own framing avoids; it
// serves tests, not benchmarks.
package h2wiretest

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Script is what the server does. The zero Script answers every request 200 "Hello world!".
type Script struct {
	MaxStreams    uint32 // SETTINGS_MAX_CONCURRENT_STREAMS in the first SETTINGS; 0 sends none
	InitialWindow uint32 // SETTINGS_INITIAL_WINDOW_SIZE in the first SETTINGS (request bodies); 0 keeps 65,535
	Body          int    // response body bytes (x's); 0 answers "Hello world!"
	BodyEnd       string // appended to the Body x's, so that a client's check can see the end of the body
	ResetEvery    int    // every n-th stream of a connection is reset with ResetCode instead of answered
	ResetCode     http2.ErrCode
	StallEvery    int // every n-th stream of a connection is never answered
	// GoAwayAfter sends GOAWAY once n streams of a connection arrived, naming the n-th as the
	// last it processes; streams above it are not answered, and the connection closes when those
	// at or below it are.
	GoAwayAfter int
	// SettingsAfter sends, once n streams of a connection arrived, new SETTINGS (MaxStreams2 and
	// Window2 where not 0) and a PING, and expects both acknowledged.
	SettingsAfter int
	MaxStreams2   uint32
	// Window2 is the new SETTINGS_INITIAL_WINDOW_SIZE: raised, the client may use it at once;
	// lowered, the client's DATA is held to it from its acknowledgement on (before it, the client
	// may still have sent under the old one), and its open streams' windows shrink by the
	// difference, below zero if need be (RFC 9113 §6.9.2).
	Window2 uint32
	Shrink  bool // SETTINGS_HEADER_TABLE_SIZE 0 then too: the client must empty its part of the table
}

// Stats is what the server saw, over all its connections.
type Stats struct {
	Conns, Streams, Answered, Resets, GoAways atomic.Int64
	SettingsAcks, PingAcks                    atomic.Int64 // acknowledgements received
	ClientResets                              atomic.Int64 // RST_STREAM received
	WindowUpdates                             atomic.Int64 // received
	MaxOpen                                   atomic.Int64 // most streams open at once on a connection
	mu                                        sync.Mutex
	violations                                []string
}

// Violations returns the rules the client broke, one line each.
func (s *Stats) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

func (s *Stats) violate(format string, args ...any) {
	s.mu.Lock()
	s.violations = append(s.violations, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// Start serves script on 127.0.0.1 until the test ends and returns the URL ("http://host:port/")
// and the server's counts.
func Start(tb testing.TB, script Script) (string, *Stats) {
	tb.Helper()
	return start(tb, script, nil)
}

// StartTLS is Start over TLS with cert, h2 chosen through ALPN (and nothing else: a client that
// does not offer h2 fails the handshake); it returns "https://host:port/".
func StartTLS(tb testing.TB, script Script, cert tls.Certificate) (string, *Stats) {
	tb.Helper()
	return start(tb, script, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}})
}

func start(tb testing.TB, script Script, cfg *tls.Config) (string, *Stats) {
	tb.Helper()
	st := &Stats{}
	url := listen(tb, cfg, func(c net.Conn) {
		st.Conns.Add(1)
		newConn(c, script, st).serve()
	})
	return url, st
}

// conn is one client connection. Its reader runs serve; answers are written by a goroutine per
// stream, which waits for the client's windows.
type conn struct {
	c      net.Conn
	s      Script
	st     *Stats
	mu     sync.Mutex // the framer's writes, the windows and the stream table
	cond   *sync.Cond
	fr     *http2.Framer
	enc    *hpack.Encoder
	encBuf bytes.Buffer
	dec    *hpack.Decoder // the requests' header blocks: a block this client coded wrong fails the connection
	// The client's windows for this server's DATA, and this server's for the client's.
	connWin, initWin int64
	streamWin        map[uint32]int64
	recvWin          map[uint32]int64 // what each stream may still send this server
	recvConnWin      int64
	open             map[uint32]bool
	limit            int64 // streams the client may open (acknowledged)
	pendingLimit     int64 // a lowered limit sent, not yet acknowledged
	pendingWindow    int64 // a lowered initial window sent, not yet acknowledged
	arrived          int
	last             uint32 // GOAWAY's last stream; 0 before
	closed           bool
	body             []byte
}

func newConn(c net.Conn, s Script, st *Stats) *conn {
	k := &conn{c: c, s: s, st: st, connWin: 65535, initWin: 65535, streamWin: map[uint32]int64{}, recvWin: map[uint32]int64{}, recvConnWin: 65535, open: map[uint32]bool{}, limit: 1 << 30}
	k.cond = sync.NewCond(&k.mu)
	k.fr = http2.NewFramer(c, c)
	k.dec = hpack.NewDecoder(4096, nil)
	k.fr.ReadMetaHeaders = k.dec
	k.enc = hpack.NewEncoder(&k.encBuf)
	k.body = []byte("Hello world!")
	if s.Body > 0 {
		k.body = append(bytes.Repeat([]byte("x"), s.Body), s.BodyEnd...)
	}
	if s.MaxStreams > 0 {
		k.limit = int64(s.MaxStreams)
	}
	return k
}

func (k *conn) serve() {
	defer func() {
		k.mu.Lock()
		k.closed = true
		k.cond.Broadcast()
		k.mu.Unlock()
		k.c.Close()
	}()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(k.c, preface); err != nil || string(preface) != http2.ClientPreface {
		k.st.violate("no client preface")
		return
	}
	var first []http2.Setting
	if k.s.MaxStreams > 0 {
		first = append(first, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: k.s.MaxStreams})
	}
	if k.s.InitialWindow > 0 {
		first = append(first, http2.Setting{ID: http2.SettingInitialWindowSize, Val: k.s.InitialWindow})
	}
	k.mu.Lock()
	k.fr.WriteSettings(first...)
	k.mu.Unlock()
	for {
		f, err := k.fr.ReadFrame()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, syscall.ECONNRESET) {
				k.st.violate("frame: %v", err) // a malformed frame or header block
			}
			return
		}
		if !k.frame(f) {
			return
		}
	}
}

// frame handles one frame from the client; false ends the connection.
func (k *conn) frame(f http2.Frame) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if f.IsAck() {
			k.st.SettingsAcks.Add(1)
			if k.pendingLimit > 0 {
				k.limit, k.pendingLimit = k.pendingLimit, 0
			}
			if k.pendingWindow > 0 {
				k.setRecvInit(k.pendingWindow)
				k.pendingWindow = 0
			}
			if k.s.Shrink && k.arrived >= k.s.SettingsAfter { // the client now knows: a block that refers to its table fails
				k.dec.SetAllowedMaxDynamicTableSize(0)
				k.dec.SetMaxDynamicTableSize(0)
			}
			return true
		}
		if v, ok := f.Value(http2.SettingHeaderTableSize); ok {
			k.enc.SetMaxDynamicTableSizeLimit(v)
		}
		if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
			delta := int64(v) - k.initWin
			k.initWin = int64(v)
			for id := range k.streamWin {
				k.streamWin[id] += delta
			}
		}
		k.fr.WriteSettingsAck()
	case *http2.PingFrame:
		if f.IsAck() {
			k.st.PingAcks.Add(1)
		}
	case *http2.WindowUpdateFrame:
		k.st.WindowUpdates.Add(1)
		if f.StreamID == 0 {
			k.connWin += int64(f.Increment)
		} else if _, ok := k.streamWin[f.StreamID]; ok {
			k.streamWin[f.StreamID] += int64(f.Increment)
		}
		k.cond.Broadcast()
	case *http2.MetaHeadersFrame:
		if f.PseudoValue("method") == "" || f.PseudoValue("path") == "" {
			k.st.violate("stream %d: a request without :method or :path", f.StreamID)
		}
		return k.headers(f.HeadersFrame)
	case *http2.DataFrame:
		k.data(f)
	case *http2.RSTStreamFrame:
		k.st.ClientResets.Add(1)
		delete(k.open, f.StreamID)
	}
	return true
}

// headers opens a stream: answered, reset, or left unanswered above a GOAWAY.
func (k *conn) headers(f *http2.HeadersFrame) bool {
	id := f.StreamID
	k.st.Streams.Add(1)
	k.arrived++
	if k.last > 0 && id > k.last { // sent before the client read the GOAWAY: never answered
		return true
	}
	if int64(len(k.open)) >= k.limit {
		k.st.violate("stream %d opened with %d open, above the limit of %d", id, len(k.open), k.limit)
	}
	k.open[id] = true
	k.st.MaxOpen.Store(max(k.st.MaxOpen.Load(), int64(len(k.open))))
	k.streamWin[id] = k.initWin
	k.recvWin[id] = k.recvInit()
	if k.s.SettingsAfter > 0 && k.arrived == k.s.SettingsAfter {
		k.changeSettings()
	}
	switch {
	case k.s.ResetEvery > 0 && k.arrived%k.s.ResetEvery == 0:
		k.st.Resets.Add(1) // counted before the client can see it
		k.fr.WriteRSTStream(id, k.s.ResetCode)
		delete(k.open, id)
	case k.s.StallEvery > 0 && k.arrived%k.s.StallEvery == 0:
	case f.StreamEnded():
		go k.answer(id)
	}
	if k.s.GoAwayAfter > 0 && k.arrived == k.s.GoAwayAfter {
		k.last = id
		k.st.GoAways.Add(1)
		k.fr.WriteGoAway(id, http2.ErrCodeNo, nil)
	}
	return true
}

// changeSettings sends the mid-run SETTINGS and a PING.
func (k *conn) changeSettings() {
	var ss []http2.Setting
	if k.s.MaxStreams2 > 0 {
		ss = append(ss, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: k.s.MaxStreams2})
		if int64(k.s.MaxStreams2) < k.limit {
			k.pendingLimit = int64(k.s.MaxStreams2)
		} else {
			k.limit = int64(k.s.MaxStreams2)
		}
	}
	if k.s.Shrink {
		ss = append(ss, http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0})
	}
	if k.s.Window2 > 0 {
		ss = append(ss, http2.Setting{ID: http2.SettingInitialWindowSize, Val: k.s.Window2})
		if w := int64(k.s.Window2); w < k.recvInit() {
			k.pendingWindow = w
		} else {
			k.setRecvInit(w)
		}
	}
	k.fr.WriteSettings(ss...)
	k.fr.WritePing(false, [8]byte{'i', 'o', 'b', 'e', 'n', 'c', 'h', 0})
}

// setRecvInit makes w the window each new stream of the client starts with, and moves the open
// streams' windows by the difference.
func (k *conn) setRecvInit(w int64) {
	delta := w - k.recvInit()
	k.s.InitialWindow = uint32(w)
	for id := range k.recvWin {
		k.recvWin[id] += delta
	}
}

// recvInit is the window each new stream of the client starts with.
func (k *conn) recvInit() int64 {
	if k.s.InitialWindow > 0 {
		return int64(k.s.InitialWindow)
	}
	return 65535
}

// data reads a request body's DATA, checking the client kept within the windows this server
// granted, and grants the bytes back at once.
func (k *conn) data(f *http2.DataFrame) {
	n := int64(len(f.Data())) // no padding from this client
	k.recvConnWin -= n
	k.recvWin[f.StreamID] -= n
	if k.recvConnWin < 0 || k.recvWin[f.StreamID] < 0 {
		k.st.violate("stream %d sent DATA beyond its window (stream %d, connection %d)", f.StreamID, k.recvWin[f.StreamID], k.recvConnWin)
	}
	if n > 0 {
		k.fr.WriteWindowUpdate(0, uint32(n))
		k.recvConnWin += n
		if !f.StreamEnded() {
			k.fr.WriteWindowUpdate(f.StreamID, uint32(n))
			k.recvWin[f.StreamID] += n
		}
	}
	if f.StreamEnded() && k.open[f.StreamID] {
		go k.answer(f.StreamID)
	}
}

// answer sends a stream's response, its DATA within the client's windows.
func (k *conn) answer(id uint32) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.encBuf.Reset()
	k.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	k.enc.WriteField(hpack.HeaderField{Name: "content-length", Value: fmt.Sprint(len(k.body))})
	if k.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: k.encBuf.Bytes(), EndHeaders: true}) != nil {
		return
	}
	for sent := 0; sent < len(k.body); {
		for !k.closed && k.open[id] && (k.connWin <= 0 || k.streamWin[id] <= 0) {
			k.cond.Wait()
		}
		if k.closed || !k.open[id] {
			return
		}
		n := int(min(int64(len(k.body)-sent), k.connWin, k.streamWin[id], 16384))
		last := sent+n == len(k.body)
		if last {
			k.st.Answered.Add(1) // counted before the client can see it
		}
		if k.fr.WriteData(id, last, k.body[sent:sent+n]) != nil {
			return
		}
		sent += n
		k.connWin -= int64(n)
		k.streamWin[id] -= int64(n)
	}
	delete(k.open, id)
	delete(k.streamWin, id)
	if k.last > 0 && len(k.open) == 0 {
		k.c.Close() // after GOAWAY, once the streams it processes are answered
	}
}
