package gopublisher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/service/servicetest"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

// goLine is standard input holding the start signal.
func goLine() io.Reader { return strings.NewReader("go\n") }

// declared declares a fresh non-durable queue, as the publish workload would, and returns its
// name and a channel to read it back.
func declared(t *testing.T, url string) (string, *amqp091.Channel) {
	t.Helper()
	conn, err := amqp091.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf("gopublisher-test-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	if _, err := ch.QueueDeclare(q, false, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = ch.QueueDelete(q, false, false, false) })
	return q, ch
}

// drain reads n messages from q and returns their bodies.
func drain(t *testing.T, ch *amqp091.Channel, q string, n int) [][]byte {
	t.Helper()
	msgs, err := ch.Consume(q, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	timeout := time.After(20 * time.Second)
	for len(out) < n {
		select {
		case d := <-msgs:
			out = append(out, d.Body)
		case <-timeout:
			t.Fatalf("%d of %d messages in %s", len(out), n, q)
		}
	}
	return out
}

// TestServeShapes publishes with every shape and reads the queue back: every id once (the seed
// shapes from 0, the fast one from 1), the body each shape builds, and the impl's own account.
func TestServeShapes(t *testing.T) {
	url := servicetest.URL(t, "rabbitmq")
	cases := []struct {
		shape, body string
		publishers  int
		timestamp   bool
		first       int64
	}{
		{ShapeSingle, "", 1, true, 0},
		{ShapePool, "", 3, true, 0},
		{ShapeUltra, "", 4, false, 0},
		{ShapeFast, BodySeed, 2, true, 1},
		{ShapeFast, BodySeedMin, 3, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.shape+"-"+tc.body, func(t *testing.T) {
			t.Parallel()
			q, ch := declared(t, url)
			const n = 2501 // not a multiple of the publishers: the ranges must cover every id
			c := ServeConfig{URL: url, Queue: q, Count: n, Publishers: tc.publishers, Shape: tc.shape, Body: tc.body}
			var out bytes.Buffer
			if err := Serve(t.Context(), c, goLine(), &out); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if !strings.HasPrefix(out.String(), "ready\n") || !strings.Contains(out.String(), fmt.Sprintf("result sent=%d seconds=", n)) {
				t.Fatalf("output %q", out.String())
			}
			seen := map[int64]bool{}
			for _, b := range drain(t, ch, q, n) {
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatalf("body %q: %v", b, err)
				}
				id := int64(m["id"].(float64))
				if seen[id] || id < tc.first || id >= tc.first+n || m["content"] != fmt.Sprintf("Hello World #%d", id) {
					t.Fatalf("body %q (seen before: %v)", b, seen[id])
				}
				seen[id] = true
				if _, ok := m["timestamp"]; ok != tc.timestamp {
					t.Fatalf("body %q: timestamp present %v, want %v", b, ok, tc.timestamp)
				}
			}
		})
	}
}

// TestConnectAfterGo: pool and ultra say "ready" before they connect (their connects are timed),
// single and fast only once connected. A broker that is not there tells them apart.
func TestConnectAfterGo(t *testing.T) {
	for _, shape := range []string{ShapeSingle, ShapePool, ShapeUltra, ShapeFast} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			c := ServeConfig{URL: "amqp://guest:guest@127.0.0.1:1/", Queue: "q", Count: 10, Publishers: 1, Shape: shape, Body: BodySeed}
			var out bytes.Buffer
			err := Serve(t.Context(), c, goLine(), &out)
			if err == nil {
				t.Fatal("no error without a broker")
			}
			if ready := strings.HasPrefix(out.String(), "ready\n"); ready != connectsAfterGo[shape] {
				t.Fatalf("ready before connecting: %v, want %v (output %q, %v)", ready, connectsAfterGo[shape], out.String(), err)
			}
		})
	}
}

// TestPoolWaitsForGo: pool makes no connection before the start line; closing standard input
// instead ends it with an error and nothing published.
func TestPoolWaitsForGo(t *testing.T) {
	url := servicetest.URL(t, "rabbitmq")
	q, ch := declared(t, url)
	pr, pw := io.Pipe()
	var out bytes.Buffer
	var wg sync.WaitGroup
	var err error
	wg.Go(func() {
		err = Serve(t.Context(), ServeConfig{URL: url, Queue: q, Count: 100, Publishers: 2, Shape: ShapePool}, pr, &out)
	})
	time.Sleep(200 * time.Millisecond)
	_ = pw.Close()
	wg.Wait()
	if err == nil {
		t.Fatal("no error when standard input closed before the start line")
	}
	if st, qerr := ch.QueueDeclarePassive(q, false, true, false, false, nil); qerr != nil || st.Messages != 0 {
		t.Fatalf("queue %+v %v: published before go", st, qerr)
	}
}

func TestServeConfigFromEnv(t *testing.T) {
	base := map[string]string{env.AMQPURL: "amqp://x/", env.Queue: "q", env.Count: "10"}
	getenv := func(extra map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return base[k]
		}
	}
	c, err := ServeConfigFromEnv(getenv(map[string]string{env.QueueDurable: "1"}))
	if err != nil || c.Shape != ShapeFast || c.Body != BodySeed || !c.QueueDurable || c.Publishers != 1 {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	for _, bad := range []map[string]string{
		{ShapeVar: "turbo"},
		{ShapeVar: ShapePool, env.Confirm: "1"},
		{ShapeVar: ShapeSingle, env.Concurrency: "4"},
		{BodyVar: "binary"},
		{env.Count: "0"},
		{env.Queue: ""},
	} {
		if _, err := ServeConfigFromEnv(getenv(bad)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := ServeConfigFromEnv(getenv(map[string]string{ShapeVar: ShapeUltra, env.Concurrency: "20"})); err != nil {
		t.Errorf("ultra with 20: %v", err)
	}
}

func TestIDRange(t *testing.T) {
	for _, tc := range []struct {
		count int64
		parts int
	}{{500000, 20}, {2501, 4}, {3, 5}, {1, 1}} {
		next := int64(0)
		for k := range tc.parts {
			first, n := idRange(tc.count, tc.parts, k)
			if first != next || n < tc.count/int64(tc.parts) || n > tc.count/int64(tc.parts)+1 {
				t.Fatalf("%d in %d, part %d: [%d, +%d), want first %d", tc.count, tc.parts, k, first, n, next)
			}
			next = first + n
		}
		if next != tc.count {
			t.Fatalf("%d in %d: ranges end at %d", tc.count, tc.parts, next)
		}
	}
}
