package engine

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/iobench/iobench/internal/h2wire"
	"github.com/iobench/iobench/internal/httpload"
)

// The windows this client grants: each stream may receive h2StreamWindow bytes ahead of being
// granted more, the connection h2ConnWindow. WINDOW_UPDATE gives back what was consumed once half
// a window is.
const (
	h2StreamWindow = 256 << 10
	h2ConnWindow   = 1 << 20
	h2ReadBuf      = 32 << 10 // a loop's read buffer: holds a frame of the largest size this client accepts (16 KiB), and more
)

// h2conn is an HTTP/2 connection's state in the event loop. The connection's requests waiting
// for a stream (before the server's SETTINGS, beyond its limit, or retried after a GOAWAY) stay
// in loopConn.inflight; those on a stream are in streams.
type h2conn struct {
	tail      []byte // the start of a frame the last read left incomplete (see h2read)
	out       []byte // frames to write; out[sent:] are not written yet
	sent      int
	dec       *h2wire.StatusDecoder
	block     []byte // a header block continued over CONTINUATION frames
	blockOf   uint32 // its stream, 0 when none
	blockEnd  bool   // its HEADERS frame ended the stream
	streams   []h2stream
	slotOf    []int32 // a stream's slot, by its sequence number (id/2) modulo len; see find
	active    int
	nextID    uint32
	ready     bool // the server's first SETTINGS arrived: streams may open
	limit     int  // streams open at once: --streams, or less if the server allows less
	goaway    bool // the server sent GOAWAY: no new streams
	lastID    uint32
	sendWin   int64 // the connection's send window
	peerInit  int64 // the server's initial stream window
	maxFrame  int   // the largest frame payload the server accepts
	hpack     hpackState
	peerHPACK uint32   // the server's HPACK table size (SETTINGS_HEADER_TABLE_SIZE)
	bodies    [][]byte // each stream slot's response body, kept for --expect-body; nil when not kept
	unacked   int64    // DATA bytes received on the connection and not yet granted back
	hdr       [h2wire.HeaderLen]byte
}

// hpackState is what a connection's server has in its HPACK table of this client's requests.
type hpackState uint8

const (
	hpFresh   hpackState = iota // nothing yet: the first stream sends h2req.first
	hpIndexed                   // first's fields: streams send next
	hpPlain                     // nothing, for good: streams send plain
)

// h2stream is one open stream and the request it carries; id 0 marks a free slot. Its fields
// are sized to keep a connection of 100 streams small.
type h2stream struct {
	q        inflight
	read     int64 // bytes of its frames received
	bodyLen  int64
	win      int64 // its send window
	id       uint32
	status   int32
	unacked  int32 // its DATA bytes not yet granted back (below h2StreamWindow)
	bodySent int32
}

// errNoStatus ends a stream that ended without a response status.
var errNoStatus = errors.New("h2: a stream ended without a response status")

// newH2Conn makes a connection's state for streams streams at once; keepBodies keeps each
// response's body for checking (Config.Expect.Body).
func newH2Conn(streams int, keepBodies bool) *h2conn {
	slots := 4
	for slots < 2*streams {
		slots *= 2
	}
	h := &h2conn{out: make([]byte, 0, 4096), dec: h2wire.NewStatusDecoder(), streams: make([]h2stream, streams), slotOf: make([]int32, slots)}
	if keepBodies {
		h.bodies = make([][]byte, streams)
	}
	return h
}

// h2open begins a new connection: the preface, SETTINGS (no push, no HPACK dynamic table, so
// that every response's header block reads alone and without allocating; this client's stream
// window) and the connection's window raised, all written with the first streams.
func (l *loop) h2open(c *loopConn) {
	h := c.h2
	h.tail, h.out, h.sent = h.tail[:0], h.out[:0], 0
	h.blockOf, h.active, h.nextID, h.ready, h.goaway = 0, 0, 1, false, false
	h.limit, h.sendWin, h.peerInit, h.maxFrame, h.unacked = l.depth, h2wire.DefaultWindow, h2wire.DefaultWindow, h2wire.DefaultMaxFrame, 0
	h.hpack, h.peerHPACK = hpFresh, 4096
	// Every stream slot is free (id 0): the connection before this one closed each of its streams.
	h.out = append(h.out, h2wire.Preface...)
	h.out = h2wire.AppendSettings(h.out, false, h2wire.Setting{ID: h2wire.SettingHeaderTableSize, Val: 0},
		h2wire.Setting{ID: h2wire.SettingEnablePush, Val: 0}, h2wire.Setting{ID: h2wire.SettingInitialWindowSize, Val: h2StreamWindow})
	h.out = h2wire.AppendWindowUpdate(h.out, 0, h2ConnWindow-h2wire.DefaultWindow)
	l.h2s.sent[h2wire.TypeSettings]++
	l.h2s.sent[h2wire.TypeWindowUpdate]++
}

// h2write opens streams for the requests waiting, as far as the server allows, sends the request
// bodies the windows allow, and writes what is pending; it reports false when the write failed
// and ended the connection.
func (l *loop) h2write(c *loopConn, now time.Time) bool {
	h := c.h2
	for c.inflight.n > 0 && h.ready && !h.goaway && h.active < h.limit && h.nextID < 1<<31 {
		// A connection's first streams (100 HEADERS frames, 5 KB) go out in writes of the write
		// buffer's size rather than growing it, which would cost every connection its memory.
		if len(h.out)+len(l.r.h2r.plain) > cap(h.out) && h.sent == 0 && len(h.out) > 0 && !l.h2flush(c) {
			return false
		}
		l.h2start(c, c.inflight.pop(), now)
	}
	if len(l.r.h2r.body) > 0 {
		l.h2bodies(c)
	}
	return l.h2flush(c)
}

// h2start opens a stream for q: its HEADERS frame goes out with the next write. The request is
// timed from now, when it is sent (from its intended start too in an open loop).
func (l *loop) h2start(c *loopConn, q inflight, now time.Time) {
	h := c.h2
	i := h.free(h.nextID)
	s := &h.streams[i]
	if h.bodies != nil {
		h.bodies[i] = h.bodies[i][:0]
	}
	q.sent = l.ns(now)
	if l.pacer == nil {
		q.intended = q.sent
	}
	*s = h2stream{id: h.nextID, q: q, win: h.peerInit}
	h.nextID += 2
	h.active++
	l.dueBy(c, int64(now.Sub(l.r.start)+l.r.cfg.Timeout))
	at := len(h.out)
	h.out = append(h.out, l.headersFrame(h)...)
	h2wire.SetStream(h.out[at:], s.id)
	l.h2s.sent[h2wire.TypeHeaders]++
}

// headersFrame returns the HEADERS frame for the connection's next stream and moves its HPACK state on: the first
// stream fills the server's table, the others refer to it, while the server's table holds it.
func (l *loop) headersFrame(h *h2conn) []byte {
	q := l.r.h2r
	fits := q.table > 0 && h.peerHPACK >= q.table
	switch {
	case h.hpack == hpFresh && fits:
		h.hpack = hpIndexed
		return q.first
	case h.hpack == hpIndexed && fits:
		return q.next
	case h.hpack == hpIndexed: // the server shrank its table: say so, and index no more
		h.hpack = hpPlain
		return q.reset
	}
	h.hpack = hpPlain
	return q.plain
}

// free returns a free stream slot for stream id, and notes it for find; there is one, as
// active < limit <= len(streams).
func (h *h2conn) free(id uint32) int {
	for i := range h.streams {
		if h.streams[i].id == 0 {
			h.slotOf[(id/2)&uint32(len(h.slotOf)-1)] = int32(i)
			return i
		}
	}
	panic("h2: no free stream slot") // a bug: active counts the slots in use
}

// find returns the open stream id, or nil.
func (h *h2conn) find(id uint32) *h2stream {
	if i := h.slot(id); i >= 0 {
		return &h.streams[i]
	}
	return nil
}

// slot returns the slot of the open stream id, or -1. It is noted by the stream's sequence
// number, in a table twice the streams open at once or more: only a stream that outlived as many
// later ones finds its note overwritten, and is then searched for.
func (h *h2conn) slot(id uint32) int {
	if id == 0 {
		return -1
	}
	if i := h.slotOf[(id/2)&uint32(len(h.slotOf)-1)]; h.streams[i].id == id {
		return int(i)
	}
	for i := range h.streams {
		if h.streams[i].id == id {
			return i
		}
	}
	return -1
}

func (h *h2conn) close(s *h2stream) {
	s.id = 0
	h.active--
}

// h2bodies sends what the connection's and each stream's send windows allow of the request bodies
// not yet sent, in DATA frames of at most the server's frame size.
func (l *loop) h2bodies(c *loopConn) {
	h, body := c.h2, l.r.h2r.body
	for i := range h.streams {
		s := &h.streams[i]
		for s.id != 0 && int(s.bodySent) < len(body) && h.sendWin > 0 && s.win > 0 {
			at := int(s.bodySent)
			n := int(min(int64(len(body)-at), h.sendWin, s.win, int64(h.maxFrame)))
			var flags uint8
			if at+n == len(body) {
				flags = h2wire.FlagEndStream
			}
			h.out = h2wire.AppendHeader(h.out, h2wire.Header{Length: uint32(n), Type: h2wire.TypeData, Flags: flags, Stream: s.id})
			h.out = append(h.out, body[at:at+n]...)
			s.bodySent += int32(n)
			h.sendWin -= int64(n)
			s.win -= int64(n)
			l.h2s.sent[h2wire.TypeData]++
		}
	}
}

// h2flush writes the pending frames; what the socket does not take waits for EPOLLOUT.
func (l *loop) h2flush(c *loopConn) bool {
	h := c.h2
	for h.sent < len(h.out) {
		if !c.writable {
			return true
		}
		n, again, err := retry(unix.SYS_WRITE, c.fd, h.out[h.sent:])
		if err != nil {
			l.broken(c, &httpload.Error{Class: httpload.Write, Err: err}, l.r.clock.Now())
			return false
		}
		c.writable = !again
		h.sent += n
	}
	h.out, h.sent = h.out[:0], 0
	return true
}

// errH2EOF is a read error: the server closed an HTTP/2 connection with streams open.
var errH2EOF = errors.New("the server closed the connection with streams open")

// h2read reads and handles whole frames while the socket has bytes, then opens the streams that
// may follow and writes what is pending. It reads into the loop's buffer, which every connection
// shares (one at a time): only the start of a frame a read left incomplete is kept, in the
// connection's tail, and put back in front of the next read.
func (l *loop) h2read(c *loopConn) {
	h, buf := c.h2, l.h2in
	r, w := 0, copy(buf, h.tail)
	for {
		for w-r >= h2wire.HeaderLen {
			fh := h2wire.ParseHeader(buf[r:])
			if fh.Length > h2wire.DefaultMaxFrame {
				l.broken(c, httpload.Fail(fmt.Errorf("h2: a %d-byte frame, above the %d this client accepts", fh.Length, h2wire.DefaultMaxFrame)), l.r.clock.Now())
				return
			}
			end := r + h2wire.HeaderLen + int(fh.Length)
			if end > w {
				break
			}
			payload := buf[r+h2wire.HeaderLen : end]
			r = end
			if err := l.h2frame(c, fh, payload); err != nil {
				l.broken(c, httpload.Fail(err), l.r.clock.Now())
				return
			}
		}
		if h.goaway && h.active == 0 { // the server is done with this connection: start anew
			l.closeConn(c)
			l.fill(c, l.r.clock.Now())
			return
		}
		if !c.readable {
			break
		}
		if r > 0 { // the incomplete frame to the front, so that the whole of it fits
			w = copy(buf, buf[r:w])
			r = 0
		}
		n, again, err := l.readInto(c, buf[w:])
		switch {
		case again:
			c.readable = false
		case err != nil:
			l.broken(c, httpload.Fail(err), l.r.clock.Now())
			return
		case n == 0:
			l.broken(c, httpload.Fail(errH2EOF), l.r.clock.Now())
			return
		default:
			w += n
			if w < len(buf) && !c.hup {
				c.readable = false
			}
		}
	}
	h.tail = append(h.tail[:0], buf[r:w]...)
	now := l.r.clock.Now()
	if l.inFlight(c) <= l.refill(c) {
		l.fill(c, now)
		return
	}
	l.h2write(c, now)
}

// h2frame handles one frame from the server.
func (l *loop) h2frame(c *loopConn, fh h2wire.Header, payload []byte) error {
	h := c.h2
	if fh.Type < h2wire.Types {
		l.h2s.recv[fh.Type]++
	}
	if h.blockOf != 0 && fh.Type != h2wire.TypeContinuation {
		return errors.New("h2: a header block interrupted by another frame")
	}
	switch fh.Type {
	case h2wire.TypeData:
		return l.h2data(c, fh, payload)
	case h2wire.TypeHeaders:
		frag, ok := h2wire.Unpad(fh, payload)
		if !ok {
			return errors.New("h2: HEADERS padded beyond its length")
		}
		if fh.Flags&h2wire.FlagEndHeaders == 0 {
			h.block, h.blockOf, h.blockEnd = append(h.block[:0], frag...), fh.Stream, fh.Flags&h2wire.FlagEndStream != 0
			return nil
		}
		return l.h2headers(c, fh.Stream, frag, len(payload), fh.Flags&h2wire.FlagEndStream != 0)
	case h2wire.TypeContinuation:
		if h.blockOf == 0 || fh.Stream != h.blockOf {
			return errors.New("h2: CONTINUATION without its HEADERS")
		}
		h.block = append(h.block, payload...)
		if fh.Flags&h2wire.FlagEndHeaders == 0 {
			return nil
		}
		id := h.blockOf
		h.blockOf = 0
		return l.h2headers(c, id, h.block, len(h.block), h.blockEnd)
	case h2wire.TypeRSTStream:
		if len(payload) != 4 {
			return errors.New("h2: RST_STREAM of a wrong length")
		}
		l.h2reset(c, fh.Stream, h2wire.Uint32(payload))
	case h2wire.TypeSettings:
		if fh.Flags&h2wire.FlagAck == 0 {
			return l.h2settings(c, payload)
		}
	case h2wire.TypePing:
		if len(payload) != 8 {
			return errors.New("h2: PING of a wrong length")
		}
		if fh.Flags&h2wire.FlagAck == 0 {
			h.out = h2wire.AppendPingAck(h.out, payload)
			l.h2s.sent[h2wire.TypePing]++
		}
	case h2wire.TypeGoAway:
		if len(payload) < 8 {
			return errors.New("h2: GOAWAY too short")
		}
		last, _ := h2wire.GoAway(payload)
		l.h2goaway(c, last)
	case h2wire.TypeWindowUpdate:
		if len(payload) != 4 {
			return errors.New("h2: WINDOW_UPDATE of a wrong length")
		}
		l.h2window(c, fh.Stream, int64(h2wire.Uint32(payload)&(1<<31-1)))
	case h2wire.TypePushPromise:
		return errors.New("h2: PUSH_PROMISE although this client disabled push")
	}
	return nil
}

// h2data counts a DATA frame into its stream, gives the windows back once half is consumed, and
// ends the stream when the frame does.
func (l *loop) h2data(c *loopConn, fh h2wire.Header, payload []byte) error {
	h := c.h2
	n := int64(len(payload)) // padding counts against the windows too
	h.unacked += n
	if h.unacked >= h2ConnWindow/2 {
		h.out = h2wire.AppendWindowUpdate(h.out, 0, uint32(h.unacked))
		l.h2s.sent[h2wire.TypeWindowUpdate]++
		h.unacked = 0
	}
	i := h.slot(fh.Stream)
	if i < 0 {
		return nil // a stream this client reset (timed out) or that ended: its data is dropped
	}
	s := &h.streams[i]
	data, ok := h2wire.Unpad(fh, payload)
	if !ok {
		return errors.New("h2: DATA padded beyond its length")
	}
	s.read += h2wire.HeaderLen + n
	s.bodyLen += int64(len(data))
	if h.bodies != nil {
		var err error
		if h.bodies[i], err = httpload.KeepBody(h.bodies[i], data); err != nil {
			return err
		}
	}
	if fh.Flags&h2wire.FlagEndStream != 0 {
		l.h2done(c, i)
		return nil
	}
	if s.unacked += int32(n); s.unacked >= h2StreamWindow/2 {
		h.out = h2wire.AppendWindowUpdate(h.out, s.id, uint32(s.unacked))
		l.h2s.sent[h2wire.TypeWindowUpdate]++
		s.unacked = 0
	}
	return nil
}

// h2headers reads a complete header block's status (of streams this client ended too, to check
// the block) and gives it to the stream; size is what its frames carried.
func (l *loop) h2headers(c *loopConn, id uint32, block []byte, size int, end bool) error {
	status, err := c.h2.dec.Decode(block)
	if err != nil {
		return fmt.Errorf("h2: header block: %v", err)
	}
	i := c.h2.slot(id)
	if i < 0 {
		return nil
	}
	s := &c.h2.streams[i]
	s.read += h2wire.HeaderLen + int64(size)
	if s.status == 0 && (status >= 200 || status == 101) {
		s.status = int32(status)
	}
	if end {
		l.h2done(c, i)
	}
	return nil
}

// h2done ends the stream in slot i, which the server ended: a response (with its body when kept),
// or a read error when it had no status.
func (l *loop) h2done(c *loopConn, i int) {
	s := &c.h2.streams[i]
	now := l.r.clock.Now()
	var resp httpload.Response
	var err error
	if s.status == 0 {
		err = httpload.Fail(errNoStatus)
	} else {
		resp = httpload.Response{Status: int(s.status), KeepAlive: true, Read: s.read, BodyLen: s.bodyLen}
		if c.h2.bodies != nil {
			resp.Body = c.h2.bodies[i]
		}
	}
	done := answeredAt(c, l.r.start.Add(time.Duration(s.q.sent)), now)
	l.freeing(c, done)
	o := l.outcome(s.q, resp, err, done)
	if _, answered := l.r.account(l.g, o); answered {
		c.answered++
	} else {
		c.unanswered++
	}
	c.h2.close(s)
}

// h2reset counts a RST_STREAM by its code and ends its stream as a reset error.
func (l *loop) h2reset(c *loopConn, id, code uint32) {
	l.h2s.resets[min(code, h2wire.Codes)]++
	s := c.h2.find(id)
	if s == nil {
		return
	}
	l.r.account(l.g, l.outcome(s.q, httpload.Response{}, errReset, l.r.clock.Now()))
	c.unanswered++
	c.h2.close(s)
}

// h2settings applies the server's SETTINGS and acknowledges them; the first ones let streams
// open. A MAX_CONCURRENT_STREAMS below --streams caps them (the record says so).
func (l *loop) h2settings(c *loopConn, payload []byte) error {
	h := c.h2
	var bad error
	if !h2wire.Settings(payload, func(s h2wire.Setting) {
		switch s.ID {
		case h2wire.SettingMaxConcurrentStreams:
			h.limit = min(l.depth, int(min(s.Val, 1<<20)))
			if h.limit < l.depth && (l.h2s.allowed == 0 || h.limit < l.h2s.allowed) {
				l.h2s.allowed = h.limit
			}
		case h2wire.SettingInitialWindowSize:
			if s.Val > h2wire.MaxWindow {
				bad = errors.New("h2: SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1")
				return
			}
			delta := int64(s.Val) - h.peerInit
			h.peerInit = int64(s.Val)
			for i := range h.streams {
				if h.streams[i].id != 0 {
					h.streams[i].win += delta
				}
			}
		case h2wire.SettingHeaderTableSize:
			h.peerHPACK = s.Val
		case h2wire.SettingMaxFrameSize:
			h.maxFrame = int(min(max(s.Val, h2wire.DefaultMaxFrame), 1<<24-1))
		}
	}) {
		return errors.New("h2: SETTINGS of a wrong length")
	}
	h.out = h2wire.AppendSettings(h.out, true)
	l.h2s.sent[h2wire.TypeSettings]++
	h.ready = true
	return bad
}

// h2goaway stops new streams on c; the streams above last, which the server will not process,
// wait for the next connection, counted as retried. The connection closes when the rest are done.
func (l *loop) h2goaway(c *loopConn, last uint32) {
	h := c.h2
	h.goaway = true
	for i := range h.streams {
		s := &h.streams[i]
		if s.id > last {
			c.inflight.push(s.q)
			l.h2s.retried++
			h.close(s)
		}
	}
}

// h2window adds a WINDOW_UPDATE's increment to the connection's or a stream's send window.
func (l *loop) h2window(c *loopConn, id uint32, incr int64) {
	if id == 0 {
		c.h2.sendWin += incr
	} else if s := c.h2.find(id); s != nil {
		s.win += incr
	}
}

// h2expire ends the streams past their deadline with a timeout, each reset (CANCEL) so the
// connection lives on, and gives the oldest deadline left (math.MaxInt64 when none). It reports
// false when a request still waiting for a stream is past its deadline: then the connection does
// not serve, and the caller ends it.
func (l *loop) h2expire(c *loopConn, now time.Time) (next int64, ok bool) {
	h, at, next := c.h2, int64(now.Sub(l.r.start)), int64(1<<63-1)
	timeout := int64(l.r.cfg.Timeout)
	for i := range h.streams {
		s := &h.streams[i]
		if s.id == 0 {
			continue
		}
		deadline := s.q.sent + timeout
		if at < deadline {
			next = min(next, deadline)
			continue
		}
		l.r.account(l.g, l.outcome(s.q, httpload.Response{}, errLoopTimeout, now))
		c.unanswered++
		h.out = h2wire.AppendRSTStream(h.out, s.id, h2wire.CodeCancel)
		l.h2s.sent[h2wire.TypeRSTStream]++
		h.close(s)
	}
	if c.inflight.n > 0 {
		deadline := c.inflight.at(0).sent + timeout
		if at >= deadline {
			return next, false
		}
		next = min(next, deadline)
	}
	return next, true
}

// h2broken charges err to the oldest open stream, or, with none, to the oldest request waiting
// for one, when the connection fails.
func (l *loop) h2broken(c *loopConn, err error, now time.Time) {
	q, ok := inflight{}, false
	if s := c.h2.oldest(); s != nil {
		q, ok = s.q, true
		c.h2.close(s)
	} else if c.inflight.n > 0 {
		q, ok = c.inflight.pop(), true
	}
	if ok {
		l.r.account(l.g, l.outcome(q, httpload.Response{}, err, now))
		c.unanswered++
	}
}

// h2abandon ends the open streams of a connection that closed as ErrInFlight; the requests
// waiting for a stream stay for the next connection.
func (l *loop) h2abandon(c *loopConn, now time.Time) {
	h := c.h2
	for i := range h.streams {
		s := &h.streams[i]
		if s.id != 0 {
			l.r.account(l.g, l.outcome(s.q, httpload.Response{}, errInFlight, now))
			c.unanswered++
			h.close(s)
		}
	}
	h.out, h.sent = h.out[:0], 0
}

// oldest returns the open stream sent first, or nil.
func (h *h2conn) oldest() *h2stream {
	var o *h2stream
	for i := range h.streams {
		if s := &h.streams[i]; s.id != 0 && (o == nil || s.q.sent < o.q.sent) {
			o = s
		}
	}
	return o
}
