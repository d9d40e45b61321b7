package relay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/relay/relaytest"
)

// start runs a relay to upstream on a free port until the test ends.
func start(t *testing.T, cfg Config) (*Relay, string) {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return r, ln.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrips sends n one-byte requests one after another and returns each answer's wait.
func roundTrips(t *testing.T, c net.Conn, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	b := make([]byte, 1)
	for i := range out {
		began := time.Now()
		if _, err := c.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		out[i] = time.Since(began)
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// slack is what a wake-up and two socket hops may add to a delay on a busy shared machine under
// the race detector (a few tens of µs on a quiet one).
const slack = time.Millisecond

// settled returns r's counts once the last answer's write has been accounted for.
func settled(r *Relay) Stats {
	time.Sleep(20 * time.Millisecond)
	return r.Stats()
}

// TestDelayAccuracy: each round trip through the relay takes about L longer than one direct, and
// the relay's own measure of what it added per turn is close to L. A busy machine only adds
// delay: it can fail the upper bounds, never pass the lower ones, so a measure above them is
// taken again, up to three times in all.
func TestDelayAccuracy(t *testing.T) {
	up := relaytest.Server(t, relaytest.Echo)
	for _, l := range []time.Duration{0, 2 * time.Millisecond} {
		t.Run(l.String(), func(t *testing.T) {
			for attempt := 1; ; attempt++ {
				low, high := delayAccuracy(t, up, l)
				if low != "" {
					t.Fatal(low)
				}
				if high == "" {
					return
				}
				if attempt == 3 {
					t.Fatal(high)
				}
				t.Logf("attempt %d: %s; again (a busy machine adds delay)", attempt, high)
			}
		})
	}
}

// delayAccuracy measures 40 round trips direct and through a new relay adding l; it returns what
// fell below the bounds and what rose above them.
func delayAccuracy(t *testing.T, up string, l time.Duration) (low, high string) {
	const n = 40
	r, addr := start(t, Config{Upstream: up, Latency: l})
	direct := median(roundTrips(t, dial(t, up), n))
	relayed := median(roundTrips(t, dial(t, addr), n))
	s := settled(r)
	if s.Turns != n {
		return fmt.Sprintf("turns %d, want %d", s.Turns, n), ""
	}
	added := time.Duration(s.AddedPerTurn() * float64(time.Microsecond))
	extra := relayed - direct
	switch {
	case added < l:
		return fmt.Sprintf("added per turn %v as the relay measured it, below %v", added, l), ""
	case extra < l-200*time.Microsecond: // the direct median itself varies by some tens of µs
		return fmt.Sprintf("median round trip %v through the relay, %v direct: %v added, below %v", relayed, direct, extra, l), ""
	case added > l+slack || extra > l+slack:
		return "", fmt.Sprintf("added per turn %v as the relay measured it, %v at the client's median; want at most %v", added, extra, l+slack)
	}
	return "", ""
}

// TestOrderKept: with a jitter nearly as large as the latency, or one that leaves half the chunks
// due at once (written by their reader) and half queued, many small chunks come back in the order
// they went.
func TestOrderKept(t *testing.T) {
	up := relaytest.Server(t, relaytest.Echo)
	for _, cfg := range []Config{
		{Upstream: up, Latency: time.Millisecond, Jitter: 900 * time.Microsecond},
		{Upstream: up, Jitter: 200 * time.Microsecond},
	} {
		t.Run(fmt.Sprintf("%v±%v", cfg.Latency, cfg.Jitter), func(t *testing.T) {
			_, addr := start(t, cfg)
			c := dial(t, addr)
			var sent bytes.Buffer
			for i := range 300 {
				sent.WriteString(fmt.Sprintf("%d,", i))
			}
			go func() {
				for _, part := range strings.SplitAfter(sent.String(), ",") {
					_, _ = c.Write([]byte(part))
					time.Sleep(50 * time.Microsecond) // separate chunks, most of them
				}
			}()
			got := make([]byte, sent.Len())
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, sent.Bytes()) {
				t.Fatalf("answers out of order:\n got %.120s...\nwant %.120s...", got, sent.Bytes())
			}
		})
	}
}

// batch answers each batch of k lines with one answer written in two parts: one turn, however
// the lines were written.
func batch(k int) func(net.Conn) {
	return func(c net.Conn) {
		b := make([]byte, 1)
		lines := 0
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
			if b[0] != '\n' {
				continue
			}
			if lines++; lines%k == 0 {
				_, _ = c.Write([]byte("ok "))
				time.Sleep(time.Millisecond)
				_, _ = c.Write([]byte("done\n"))
			}
		}
	}
}

// TestTurnsPipelined: three statements written separately before any answer (pipelined), or
// together in one write, make one turn; an answer in two parts ends one.
func TestTurnsPipelined(t *testing.T) {
	const rounds = 10
	up := relaytest.Server(t, batch(3))
	for name, writes := range map[string][]string{
		"pipelined": {"BEGIN\n", "INSERT\n", "COMMIT\n"},
		"one write": {"BEGIN\nINSERT\nCOMMIT\n"},
	} {
		t.Run(name, func(t *testing.T) {
			r, addr := start(t, Config{Upstream: up, Latency: 200 * time.Microsecond})
			probe, err := net.Dial("tcp", addr) // a check that the port is open: no connection used
			if err != nil {
				t.Fatal(err)
			}
			probe.Close()
			c := dial(t, addr)
			answer := make([]byte, len("ok done\n"))
			for range rounds {
				for _, w := range writes {
					if _, err := c.Write([]byte(w)); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := io.ReadFull(c, answer); err != nil {
					t.Fatal(err)
				}
			}
			if s := settled(r); s.Turns != rounds || s.Conns != 1 {
				t.Errorf("%d turns on %d connections for %d rounds of %q on one", s.Turns, s.Conns, rounds, writes)
			}
		})
	}
}

// TestJitterBounds: every round trip is delayed by at least L-J, the median one by about L, and
// the delays spread over about 2J.
func TestJitterBounds(t *testing.T) {
	const l, j = 2 * time.Millisecond, time.Millisecond
	up := relaytest.Server(t, relaytest.Echo)
	_, addr := start(t, Config{Upstream: up, Latency: l, Jitter: j})
	rtts := roundTrips(t, dial(t, addr), 60)
	sort.Slice(rtts, func(a, b int) bool { return rtts[a] < rtts[b] })
	lo, p90 := rtts[0], rtts[len(rtts)*9/10]
	if lo < l-j {
		t.Errorf("shortest round trip %v, below L-J = %v", lo, l-j)
	}
	if m := rtts[len(rtts)/2]; m > l+slack {
		t.Errorf("median round trip %v, want about L = %v (at most %v more, for the machine)", m, l, slack)
	}
	if p90-lo < j {
		t.Errorf("round trips spread over %v only (%v to the 90th percentile %v), want at least J = %v", p90-lo, lo, p90, j)
	}
}

// TestStatsLine: a stats line reads back as written, and Control answers the stats command only.
func TestStatsLine(t *testing.T) {
	r := &Relay{}
	r.turns.Store(7)
	r.added.Store(int64(35 * time.Millisecond))
	var out bytes.Buffer
	Control(r, nil, strings.NewReader("hello\nstats\n"), &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("answers %q, want one stats line", out.String())
	}
	s, ok := ParseStats(lines[0])
	if !ok || s.Turns != 7 || s.AddedPerTurn() != 5000 {
		t.Errorf("read back %+v (ok %v) from %q", s, ok, lines[0])
	}
}

func TestConfigRefused(t *testing.T) {
	for _, c := range []Config{{}, {Upstream: "x:1", Latency: -1}, {Upstream: "x:1", Jitter: -1}} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
	for _, s := range []string{"5", "-1ms", "fast"} {
		if _, err := ParseDelay("--latency", s); err == nil {
			t.Errorf("ParseDelay(%q) accepted", s)
		}
	}
}

// TestPeakInFlight: two connections waiting on the service together make a peak of 2, and a
// Stats call starts the peak again from the turns outstanding then (none).
func TestPeakInFlight(t *testing.T) {
	up := relaytest.Server(t, func(c net.Conn) {
		b := make([]byte, 1)
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
			time.Sleep(30 * time.Millisecond) // both requests are outstanding meanwhile
			_, _ = c.Write(b)
		}
	})
	r, addr := start(t, Config{Upstream: up})
	done := make(chan error, 2)
	for range 2 {
		c := dial(t, addr)
		go func() {
			_, err := c.Write([]byte{'x'})
			if err == nil {
				_, err = io.ReadFull(c, make([]byte, 1))
			}
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if s := settled(r); s.Peak != 2 || s.Turns != 2 {
		t.Errorf("peak %d over %d turns, want 2 and 2", s.Peak, s.Turns)
	}
	if s := r.Stats(); s.Peak != 0 {
		t.Errorf("peak %d after a Stats call with nothing outstanding, want 0", s.Peak)
	}
}
