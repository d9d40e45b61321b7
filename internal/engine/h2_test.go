package engine

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"crypto/tls"

	"golang.org/x/net/http2"

	"github.com/iobench/iobench/internal/h2wire/h2wiretest"
	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/testcert"
)

// h2srv is a scripted HTTP/2 server a test loads, over h2c or over TLS.
type h2srv struct {
	url string
	st  *h2wiretest.Stats
	tls *tls.Config // the client's, trusting the server's certificate; nil for h2c
}

// eachH2 runs test against a server following script, once over h2c with prior knowledge and once
// over TLS with h2 chosen through ALPN: the loop speaks both with the same code.
func eachH2(t *testing.T, script h2wiretest.Script, test func(t *testing.T, s h2srv)) {
	t.Run("h2c", func(t *testing.T) {
		url, st := h2wiretest.Start(t, script)
		test(t, h2srv{url: url, st: st})
	})
	t.Run("h2", func(t *testing.T) {
		cert := testcert.New(t)
		url, st := h2wiretest.StartTLS(t, script, cert.TLS)
		target, err := httpload.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := httpload.TLSConfig(target, httpload.TLSOptions{CAFile: cert.CAFile})
		if err != nil {
			t.Fatal(err)
		}
		test(t, h2srv{url: url, st: st, tls: cfg})
	})
}

// h2config is a run against s over HTTP/2 on one thread.
func h2config(t *testing.T, s h2srv) Config {
	cfg := config(t, EngineLoop, s.url)
	cfg.Threads, cfg.HTTP2, cfg.TLS = 1, true, s.tls
	return cfg
}

// h2run runs -n requests on conns connections of streams streams each against s, and checks
// that the result names the protocol it spoke: h2c, or h2 negotiated in every handshake.
func h2run(t *testing.T, s h2srv, conns, streams int, n int64, edit func(*Config)) *Result {
	t.Helper()
	cfg := h2config(t, s)
	cfg.Connections, cfg.Requests, cfg.Streams = conns, n, streams
	if edit != nil {
		edit(&cfg)
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkProtocol(t, s, res)
	return res
}

func checkProtocol(t *testing.T, s h2srv, res *Result) {
	t.Helper()
	want := "h2c"
	if s.tls != nil {
		want = "h2"
		if tl := res.TLS; tl == nil || tl.Last.Protocol != "h2" || tl.Handshakes != s.st.Conns.Load() {
			t.Errorf("tls %+v; want ALPN h2, one handshake for each of the server's %d connections", res.TLS, s.st.Conns.Load())
		}
	}
	if res.HTTP2 == nil || res.HTTP2.Protocol != want {
		t.Errorf("http2 section %+v; want protocol %s", res.HTTP2, want)
	}
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
	eachH2(t, h2wiretest.Script{MaxStreams: 8}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 2, 16, 500, nil)
		noViolations(t, s.st)
		if res.Succeeded != 500 || s.st.Answered.Load() != 500 || res.Latency.Count() != 500 {
			t.Fatalf("succeeded %d, server answered %d, %d latencies; want 500 each (errors %v)", res.Succeeded, s.st.Answered.Load(), res.Latency.Count(), res.Errors)
		}
		if h := res.HTTP2; h == nil || h.StreamsAllowed != 8 || h.Streams != 16 || h.FramesSent["headers"] != 500 || h.FramesReceived["data"] != 500 {
			t.Fatalf("http2 section %+v; want streams 16 capped to 8, 500 HEADERS sent and DATA received", res.HTTP2)
		}
		if s.st.MaxOpen.Load() != 8 || s.st.SettingsAcks.Load() < s.st.Conns.Load() {
			t.Errorf("at most %d streams open, %d SETTINGS acknowledged on %d connections; want 8 open, each connection's SETTINGS acknowledged", s.st.MaxOpen.Load(), s.st.SettingsAcks.Load(), s.st.Conns.Load())
		}
	})
}

// TestH2ResetsCountedByCode has every fifth stream reset: each a reset error, counted by code.
func TestH2ResetsCountedByCode(t *testing.T) {
	eachH2(t, h2wiretest.Script{ResetEvery: 5, ResetCode: http2.ErrCodeRefusedStream}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 10, 300, nil)
		noViolations(t, s.st)
		resets := s.st.Resets.Load()
		if resets != 60 || res.Errors[ErrReset] != resets || res.HTTP2.Resets["refused_stream"] != resets || res.Succeeded != 300-resets {
			t.Fatalf("server reset %d, client counted %d reset errors, resets by code %v, %d succeeded; want 60, 60, refused_stream 60, 240",
				resets, res.Errors[ErrReset], res.HTTP2.Resets, res.Succeeded)
		}
	})
}

// TestH2GoAwayRetried has each connection sent GOAWAY after its 10th stream: the streams above
// its last id are retried on a new connection and counted (the server saw some of them, others
// had not reached it before it closed), each retry one more stream, and every request is answered
// once.
func TestH2GoAwayRetried(t *testing.T) {
	eachH2(t, h2wiretest.Script{GoAwayAfter: 10}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 2, 8, 400, nil)
		noViolations(t, s.st)
		unanswered := s.st.Streams.Load() - s.st.Answered.Load()
		if res.Succeeded != 400 || s.st.Answered.Load() != 400 || len(res.Errors) != 0 {
			t.Fatalf("succeeded %d, server answered %d, errors %v; want 400 answered once", res.Succeeded, s.st.Answered.Load(), res.Errors)
		}
		h := res.HTTP2
		if h.GoAwayRetried < unanswered || h.FramesSent["headers"] != 400+h.GoAwayRetried || s.st.Conns.Load() < 40 {
			t.Fatalf("goaway_retried %d, server left %d streams unanswered, %d streams opened, %d connections; want every one left retried, one stream per retry, 40 connections or more",
				h.GoAwayRetried, unanswered, h.FramesSent["headers"], s.st.Conns.Load())
		}
	})
}

// TestH2WindowUpdates loads responses larger than the windows this client grants (a stream's and
// the connection's): they complete only if the client gives the windows back as it reads.
func TestH2WindowUpdates(t *testing.T) {
	eachH2(t, h2wiretest.Script{Body: 600 << 10}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 4, 20, nil)
		noViolations(t, s.st)
		if res.Succeeded != 20 || res.BytesRead < 20*600<<10 || s.st.WindowUpdates.Load() == 0 {
			t.Fatalf("succeeded %d, read %d bytes, server got %d WINDOW_UPDATEs; want 20 responses of 600 KiB", res.Succeeded, res.BytesRead, s.st.WindowUpdates.Load())
		}
	})
}

// TestH2SmallWindowForBodies sends 1,000-byte bodies to a server granting 100 bytes per stream:
// the client must send within the window and wait for the server's WINDOW_UPDATEs.
func TestH2SmallWindowForBodies(t *testing.T) {
	eachH2(t, h2wiretest.Script{InitialWindow: 100}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 4, 40, func(c *Config) {
			c.Request = httpload.RequestSpec{Method: "POST", Target: c.Target, Body: []byte(strings.Repeat("b", 1000))}.Build()
		})
		noViolations(t, s.st)
		if res.Succeeded != 40 || res.HTTP2.FramesSent["data"] < 40*10 {
			t.Fatalf("succeeded %d, %d DATA frames sent (errors %v); want 40, with bodies cut to the 100-byte window", res.Succeeded, res.HTTP2.FramesSent["data"], res.Errors)
		}
	})
}

// TestH2SettingsChangeMidRun lowers the stream limit from 16 to 4 and raises the window after the
// 20th stream, with a PING: acknowledged, and never more than 4 streams opened after.
func TestH2SettingsChangeMidRun(t *testing.T) {
	eachH2(t, h2wiretest.Script{MaxStreams: 16, SettingsAfter: 20, MaxStreams2: 4, Window2: 1 << 20}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 16, 300, nil)
		noViolations(t, s.st)
		if res.Succeeded != 300 || s.st.PingAcks.Load() != 1 || s.st.SettingsAcks.Load() != 2 {
			t.Fatalf("succeeded %d, %d PINGs and %d SETTINGS acknowledged; want 300, 1 and 2", res.Succeeded, s.st.PingAcks.Load(), s.st.SettingsAcks.Load())
		}
		if res.HTTP2.StreamsAllowed != 4 || res.HTTP2.FramesSent["ping"] != 1 {
			t.Errorf("http2 section %+v; want streams capped to 4 and one PING answered", res.HTTP2)
		}
	})
}

// TestH2ExpectBody checks every response body against --expect-body: bodies of 40,000 x's and
// "end" come in three DATA frames each, interleaved with the other streams' (each stream is
// answered by a goroutine of its own), so a stream whose body took another's bytes, or kept the
// last response's, would not match. A pattern for the whole body passes every response; another
// end fails every one as an expect error.
func TestH2ExpectBody(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		ok      int64
	}{{"^x+end$", 60}, {"^x+END$", 0}} {
		eachH2(t, h2wiretest.Script{Body: 40000, BodyEnd: "end"}, func(t *testing.T, s h2srv) {
			res := h2run(t, s, 2, 8, 60, func(c *Config) { c.Expect.Body = regexp.MustCompile(tc.pattern) })
			noViolations(t, s.st)
			if res.Succeeded != tc.ok || res.Errors[ErrExpect] != 60-tc.ok || res.HTTP2.FramesReceived["data"] < 3*60 || res.BytesRead < 60*40003 {
				t.Errorf("%s: succeeded %d, expect errors %d, %d DATA frames, %d bytes read (errors %v); want %d, %d, 180 frames and 60 bodies or more",
					tc.pattern, res.Succeeded, res.Errors[ErrExpect], res.HTTP2.FramesReceived["data"], res.BytesRead, res.Errors, tc.ok, 60-tc.ok)
			}
		})
	}
}

// TestH2WindowLoweredMidRun has the server lower its initial stream window from 1,000 to 50
// bytes after the 20th stream, while 3,000-byte bodies go out 1,000 bytes per window: the client
// must shrink its open streams' windows by the difference (below zero if need be) and send
// within 50 bytes per stream from then on.
func TestH2WindowLoweredMidRun(t *testing.T) {
	eachH2(t, h2wiretest.Script{InitialWindow: 1000, SettingsAfter: 20, Window2: 50}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 4, 80, func(c *Config) {
			c.Request = httpload.RequestSpec{Method: "POST", Target: c.Target, Body: []byte(strings.Repeat("b", 3000))}.Build()
		})
		noViolations(t, s.st)
		if res.Succeeded != 80 || s.st.SettingsAcks.Load() != 2 || res.HTTP2.FramesSent["data"] < (80-24)*60 {
			t.Fatalf("succeeded %d, %d SETTINGS acknowledged, %d DATA frames sent (errors %v); want 80, 2, and the bodies after the change in 50-byte frames",
				res.Succeeded, s.st.SettingsAcks.Load(), res.HTTP2.FramesSent["data"], res.Errors)
		}
	})
}

// TestH2StreamTimeout leaves every tenth stream unanswered: each is a timeout, reset (CANCEL) by
// the client, and the connection carries on.
func TestH2StreamTimeout(t *testing.T) {
	eachH2(t, h2wiretest.Script{StallEvery: 10}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 4, 100, func(c *Config) { c.Timeout = 200 * time.Millisecond })
		noViolations(t, s.st)
		if res.Errors[ErrTimeout] != 10 || res.Succeeded != 90 || s.st.Conns.Load() != 1 || s.st.ClientResets.Load() != 10 || res.HTTP2.FramesSent["rst_stream"] != 10 {
			t.Fatalf("timeouts %d, succeeded %d, %d connections, server got %d RST_STREAMs; want 10, 90, 1, 10 (errors %v)",
				res.Errors[ErrTimeout], res.Succeeded, s.st.Conns.Load(), s.st.ClientResets.Load(), res.Errors)
		}
	})
}

// TestH2OpenLoop runs a drained open loop over h2c: every intended start of the measured second
// is sent on a stream and counted once, timed from its intended start.
func TestH2OpenLoop(t *testing.T) {
	eachH2(t, h2wiretest.Script{}, func(t *testing.T, s h2srv) {
		cfg := h2config(t, s)
		cfg.Connections, cfg.Streams = 2, 4
		cfg.Rate, cfg.Duration, cfg.Drain = 400, time.Second, true
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		noViolations(t, s.st)
		if res.Succeeded != 400 || s.st.Answered.Load() != 400 || res.Uncorrected == nil || res.Lag.Count() != 400 {
			t.Fatalf("succeeded %d, server answered %d, errors %v; want the 400 intended starts of the second, each answered once", res.Succeeded, s.st.Answered.Load(), res.Errors)
		}
		checkProtocol(t, s, res)
	})
}

// TestH2HPACKTableShrunk has the server's HPACK table shrunk to nothing mid-run: the client, which
// indexed its request's fields on each connection's first stream and referred to them since,
// must say the table is empty and send literals from then on; the server decodes every block.
func TestH2HPACKTableShrunk(t *testing.T) {
	eachH2(t, h2wiretest.Script{SettingsAfter: 30, Shrink: true}, func(t *testing.T, s h2srv) {
		res := h2run(t, s, 1, 8, 200, nil)
		noViolations(t, s.st)
		if res.Succeeded != 200 || s.st.Answered.Load() != 200 || s.st.SettingsAcks.Load() != 2 {
			t.Fatalf("succeeded %d, server answered %d, %d SETTINGS acknowledged (errors %v); want 200, 200, 2", res.Succeeded, s.st.Answered.Load(), s.st.SettingsAcks.Load(), res.Errors)
		}
	})
}

// TestH2RefusedInALPN loads a TLS server that speaks http/1.1 alone: every handshake fails (no
// protocol in common), each a connect error, and no request counts as sent.
func TestH2RefusedInALPN(t *testing.T) {
	cert := testcert.New(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert.TLS}, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	s := h2srv{url: "https://" + ln.Addr().String() + "/"}
	cfg := h2config(t, s)
	if cfg.TLS, err = httpload.TLSConfig(cfg.Target, httpload.TLSOptions{CAFile: cert.CAFile}); err != nil {
		t.Fatal(err)
	}
	cfg.Connections, cfg.Requests, cfg.Streams, cfg.ConnectWait = 1, 5, 4, time.Millisecond
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors[ErrConnect] != 5 || res.Completed != 0 || res.Unanswered != 0 || res.TLS.Handshakes != 0 {
		t.Fatalf("errors %v, %d completed, %d unanswered, %d handshakes; want 5 connect errors and nothing sent", res.Errors, res.Completed, res.Unanswered, res.TLS.Handshakes)
	}
}
