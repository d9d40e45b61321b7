package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/iobench/iobench/internal/h2wire/h2wiretest"
	"github.com/iobench/iobench/internal/httpload"
)

// h2run runs -n requests on conns connections of streams streams each against url over h2c.
func h2run(t *testing.T, url string, conns, streams int, n int64, edit func(*Config)) *Result {
	t.Helper()
	cfg := config(t, EngineLoop, url)
	cfg.Connections, cfg.Threads, cfg.Requests, cfg.HTTP2, cfg.Streams = conns, 1, n, true, streams
	if edit != nil {
		edit(&cfg)
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func noViolations(t *testing.T, st *h2wiretest.Stats) {
	t.Helper()
	if v := st.Violations(); len(v) > 0 {
		t.Errorf("the client broke HTTP/2's rules: %s", strings.Join(v, "; "))
	}
}

// TestH2StreamsCappedBySettings asks 16 streams of a server allowing 8: never more than 8 open,
// the cap recorded, every request answered once, the server's SETTINGS acknowledged.
func TestH2StreamsCappedBySettings(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{MaxStreams: 8})
	res := h2run(t, url, 2, 16, 500, nil)
	noViolations(t, st)
	if res.Succeeded != 500 || st.Answered.Load() != 500 || res.Latency.Count() != 500 {
		t.Fatalf("succeeded %d, server answered %d, %d latencies; want 500 each (errors %v)", res.Succeeded, st.Answered.Load(), res.Latency.Count(), res.Errors)
	}
	if h := res.HTTP2; h == nil || h.StreamsAllowed != 8 || h.Streams != 16 || h.FramesSent["headers"] != 500 || h.FramesReceived["data"] != 500 {
		t.Fatalf("http2 section %+v; want streams 16 capped to 8, 500 HEADERS sent and DATA received", res.HTTP2)
	}
	if st.MaxOpen.Load() != 8 || st.SettingsAcks.Load() < st.Conns.Load() {
		t.Errorf("at most %d streams open, %d SETTINGS acknowledged on %d connections; want 8 open, each connection's SETTINGS acknowledged", st.MaxOpen.Load(), st.SettingsAcks.Load(), st.Conns.Load())
	}
}

// TestH2ResetsCountedByCode has every fifth stream reset: each a reset error, counted by code.
func TestH2ResetsCountedByCode(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{ResetEvery: 5, ResetCode: http2.ErrCodeRefusedStream})
	res := h2run(t, url, 1, 10, 300, nil)
	noViolations(t, st)
	resets := st.Resets.Load()
	if resets != 60 || res.Errors[ErrReset] != resets || res.HTTP2.Resets["refused_stream"] != resets || res.Succeeded != 300-resets {
		t.Fatalf("server reset %d, client counted %d reset errors, resets by code %v, %d succeeded; want 60, 60, refused_stream 60, 240",
			resets, res.Errors[ErrReset], res.HTTP2.Resets, res.Succeeded)
	}
}

// TestH2GoAwayRetried has each connection sent GOAWAY after its 10th stream: the streams above
// its last id are retried on a new connection and counted (the server saw some of them, others
// had not reached it before it closed), each retry one more stream, and every request is answered
// once.
func TestH2GoAwayRetried(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{GoAwayAfter: 10})
	res := h2run(t, url, 2, 8, 400, nil)
	noViolations(t, st)
	unanswered := st.Streams.Load() - st.Answered.Load()
	if res.Succeeded != 400 || st.Answered.Load() != 400 || len(res.Errors) != 0 {
		t.Fatalf("succeeded %d, server answered %d, errors %v; want 400 answered once", res.Succeeded, st.Answered.Load(), res.Errors)
	}
	h := res.HTTP2
	if h.GoAwayRetried < unanswered || h.FramesSent["headers"] != 400+h.GoAwayRetried || st.Conns.Load() < 40 {
		t.Fatalf("goaway_retried %d, server left %d streams unanswered, %d streams opened, %d connections; want every one left retried, one stream per retry, 40 connections or more",
			h.GoAwayRetried, unanswered, h.FramesSent["headers"], st.Conns.Load())
	}
}

// TestH2WindowUpdates loads responses larger than the windows this client grants (a stream's and
// the connection's): they complete only if the client gives the windows back as it reads.
func TestH2WindowUpdates(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{Body: 600 << 10})
	res := h2run(t, url, 1, 4, 20, nil)
	noViolations(t, st)
	if res.Succeeded != 20 || res.BytesRead < 20*600<<10 || st.WindowUpdates.Load() == 0 {
		t.Fatalf("succeeded %d, read %d bytes, server got %d WINDOW_UPDATEs; want 20 responses of 600 KiB", res.Succeeded, res.BytesRead, st.WindowUpdates.Load())
	}
}

// TestH2SmallWindowForBodies sends 1,000-byte bodies to a server granting 100 bytes per stream:
// the client must send within the window and wait for the server's WINDOW_UPDATEs.
func TestH2SmallWindowForBodies(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{InitialWindow: 100})
	res := h2run(t, url, 1, 4, 40, func(c *Config) {
		c.Request = httpload.RequestSpec{Method: "POST", Target: c.Target, Body: []byte(strings.Repeat("b", 1000))}.Build()
	})
	noViolations(t, st)
	if res.Succeeded != 40 || res.HTTP2.FramesSent["data"] < 40*10 {
		t.Fatalf("succeeded %d, %d DATA frames sent (errors %v); want 40, with bodies cut to the 100-byte window", res.Succeeded, res.HTTP2.FramesSent["data"], res.Errors)
	}
}

// TestH2SettingsChangeMidRun lowers the stream limit from 16 to 4 and raises the window after the
// 20th stream, with a PING: acknowledged, and never more than 4 streams opened after.
func TestH2SettingsChangeMidRun(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{MaxStreams: 16, SettingsAfter: 20, MaxStreams2: 4, Window2: 1 << 20})
	res := h2run(t, url, 1, 16, 300, nil)
	noViolations(t, st)
	if res.Succeeded != 300 || st.PingAcks.Load() != 1 || st.SettingsAcks.Load() != 2 {
		t.Fatalf("succeeded %d, %d PINGs and %d SETTINGS acknowledged; want 300, 1 and 2", res.Succeeded, st.PingAcks.Load(), st.SettingsAcks.Load())
	}
	if res.HTTP2.StreamsAllowed != 4 || res.HTTP2.FramesSent["ping"] != 1 {
		t.Errorf("http2 section %+v; want streams capped to 4 and one PING answered", res.HTTP2)
	}
}

// TestH2StreamTimeout leaves every tenth stream unanswered: each is a timeout, reset (CANCEL) by
// the client, and the connection carries on.
func TestH2StreamTimeout(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{StallEvery: 10})
	res := h2run(t, url, 1, 4, 100, func(c *Config) { c.Timeout = 200 * time.Millisecond })
	noViolations(t, st)
	if res.Errors[ErrTimeout] != 10 || res.Succeeded != 90 || st.Conns.Load() != 1 || st.ClientResets.Load() != 10 || res.HTTP2.FramesSent["rst_stream"] != 10 {
		t.Fatalf("timeouts %d, succeeded %d, %d connections, server got %d RST_STREAMs; want 10, 90, 1, 10 (errors %v)",
			res.Errors[ErrTimeout], res.Succeeded, st.Conns.Load(), st.ClientResets.Load(), res.Errors)
	}
}

// TestH2OpenLoop runs a drained open loop over h2c: every intended start of the measured second
// is sent on a stream and counted once, timed from its intended start.
func TestH2OpenLoop(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{})
	cfg := config(t, EngineLoop, url)
	cfg.Connections, cfg.Threads, cfg.HTTP2, cfg.Streams = 2, 1, true, 4
	cfg.Rate, cfg.Duration, cfg.Drain = 400, time.Second, true
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	noViolations(t, st)
	if res.Succeeded != 400 || st.Answered.Load() != 400 || res.Uncorrected == nil || res.Lag.Count() != 400 {
		t.Fatalf("succeeded %d, server answered %d, errors %v; want the 400 intended starts of the second, each answered once", res.Succeeded, st.Answered.Load(), res.Errors)
	}
}

// TestH2HPACKTableShrunk has the server's HPACK table shrunk to nothing mid-run: the client, which
// indexed its request's fields on each connection's first stream and referred to them since,
// must say the table is empty and send literals from then on; the server decodes every block.
func TestH2HPACKTableShrunk(t *testing.T) {
	url, st := h2wiretest.Start(t, h2wiretest.Script{SettingsAfter: 30, Shrink: true})
	res := h2run(t, url, 1, 8, 200, nil)
	noViolations(t, st)
	if res.Succeeded != 200 || st.Answered.Load() != 200 || st.SettingsAcks.Load() != 2 {
		t.Fatalf("succeeded %d, server answered %d, %d SETTINGS acknowledged (errors %v); want 200, 200, 2", res.Succeeded, st.Answered.Load(), st.SettingsAcks.Load(), res.Errors)
	}
}
