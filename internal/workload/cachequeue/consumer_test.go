package cachequeue

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/cpuset"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// TestPHPConsumersCounted runs /queue/zmq and /queue/redis of impls/php/cachequeue through
// nginx and PHP-FPM with the seed's consumers beside it, on stores of the test's own: the
// store's change plus what the consumer received is exactly the responses, Redis's five
// leftovers of an earlier run included (the popper takes them too). A consumer that drops
// messages fails the run.
func TestPHPConsumersCounted(t *testing.T) {
	target := target(t, "php-cachequeue", "")
	redisURL := privateStores(t)
	for _, tc := range []struct {
		route, consumer string
		leftovers       int64
	}{
		{"/queue/zmq", "php zmqserver.php", 0},
		{"/queue/redis", "php redispopper.php", 5},
	} {
		t.Run(tc.route[1:], func(t *testing.T) {
			pushLeftovers(t, redisURL, tc.leftovers)
			rec, err := RunOne(t.Context(), target, consumersRun(tc.route))
			if err != nil {
				t.Fatal(err)
			}
			c := Section(rec)
			k := c.Consumer
			if k == nil || !c.Counted || k.Command != tc.consumer || c.Unanswered != 0 || c.Answered == 0 ||
				c.Change != -tc.leftovers || c.Change+k.Received != c.Answered {
				t.Fatalf("section %+v, consumer %+v; want %s's total plus the store's change -%d to be the responses", c, k, tc.consumer, tc.leftovers)
			}
			if k.DrainRate <= 0 || k.LagMessages < 0 || k.LagSeconds < 0 || rec.Case != tc.route+" with its consumer" {
				t.Errorf("consumer %+v, case %q", k, rec.Case)
			}
			if !hasProcess(rec, tc.consumer, "sut") {
				t.Errorf("no sut process %q in %+v", tc.consumer, rec.Processes)
			}
			t.Logf("%s: %.0f req/s; %s; drained %.0f msg/s, %d behind at the end, %.3fs", tc.route, rec.Throughput.Mean, c.Detail, k.DrainRate, k.LagMessages, k.LagSeconds)
		})
	}
	t.Run("dropping-consumer", func(t *testing.T) {
		// redispopper's loop, but every 50th message it pops is not counted.
		drops := withConsumer(target, "/queue/redis", "php", "-r", `require 'bootstrap.php'; $q = \App\Queue\Redis::create(); $n = 0; `+
			`(new \App\Consumer())->run(static function () use ($q, &$n): bool { return $q->pop() !== null && ++$n % 50 !== 0; });`)
		rec, err := RunOne(t.Context(), drops, consumersRun("/queue/redis"))
		if !errors.Is(err, ErrCount) || rec == nil || Section(rec) == nil || !strings.Contains(Section(rec).Detail, "fewer than the responses") {
			t.Fatalf("err %v; want ErrCount with the consumer's shortfall", err)
		}
		t.Logf("%v", err)
	})
}

// consumersRun is a short run of route with its consumer.
func consumersRun(route string) Options {
	return Options{Route: route, Connections: 4, Duration: time.Second, Warmup: 300 * time.Millisecond,
		Timeout: 2 * time.Second, Consumers: true}
}

// pushLeftovers pushes n messages onto the seed's list, as a run without a consumer leaves them.
func pushLeftovers(t *testing.T, redisURL string, n int64) {
	t.Helper()
	q, err := open.WorkQueue(t.Context(), redisURL+"/1", open.QueueName(ListKey))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for range n {
		if err := q.Push(t.Context(), []byte("visit")); err != nil {
			t.Fatal(err)
		}
	}
}

// withConsumer returns target with argv as its consumer of route.
func withConsumer(target workload.Target, route string, argv ...string) workload.Target {
	m := *target.Inst.Manifest
	m.Workloads = maps.Clone(m.Workloads)
	w := *ManifestOf(&m)
	w.Consumers = map[string][]string{route: argv}
	m.Workloads[Name] = &w
	inst := *target.Inst
	inst.Manifest = &m
	return workload.Target{Inst: &inst, Variant: target.Variant}
}

func hasProcess(rec *result.Record, name, role string) bool {
	for _, p := range rec.Processes {
		if p.Name == name && p.Role == role {
			return true
		}
	}
	return false
}

// TestConsumerReport reads a consumer's lines as they would come and checks what the record
// says: its total, its drain rate from the end of the warm-up, and its lag when the load ended,
// interpolated between its progress lines.
func TestConsumerReport(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) string {
		return fmt.Sprintf("%.6f", float64(t0.Add(time.Duration(ms)*time.Millisecond).UnixMicro())/1e6)
	}
	c := &consumer{argv: []string{"php", "zmqserver.php"}, total: -1, marked: t0}
	for _, l := range []string{"ready", "received 1 " + at(0), "PHP Warning: something", "received 50 " + at(10),
		"received 100 " + at(20), "received 150 " + at(30), "Processed 150 entries", "total 150"} {
		c.onLine(l)
	}
	if !c.idle || c.total != 150 || len(c.points) != 4 {
		t.Fatalf("read %+v", c)
	}
	got := c.report(t0.Add(15 * time.Millisecond))
	want := ConsumerRecord{Command: "php zmqserver.php", Received: 150, DrainRate: 149 / 0.030, LagMessages: 75, LagSeconds: 0.015}
	if d := got.DrainRate - want.DrainRate; d < -0.5 || d > 0.5 {
		t.Errorf("drain rate %v; want %v", got.DrainRate, want.DrainRate)
	}
	got.DrainRate = want.DrainRate
	if d := got.LagSeconds - want.LagSeconds; d > -1e-6 && d < 1e-6 {
		got.LagSeconds = want.LagSeconds
	}
	if *got != want {
		t.Errorf("report %+v; want %+v", *got, want)
	}
	if late := c.report(t0.Add(time.Second)); late.LagMessages != 0 || late.LagSeconds != 0 {
		t.Errorf("a consumer that had caught up lags %+v", late)
	}
	if n := receivedAt(c.points, t0.Add(-time.Millisecond)); n != 0 {
		t.Errorf("before its first message: %d", n)
	}
}

// TestConsumerOf: a run asks for the route's consumer, and gets it only where the impl declares
// one, pinned as the impl is; the text says what it did, or that none ran.
func TestConsumerOf(t *testing.T) {
	m := &impl.Manifest{Name: "php-x", Workloads: map[string]any{Name: &Manifest{Consumers: map[string][]string{"/queue/zmq": {"php", "zmqserver.php"}}}}}
	target := workload.Target{Inst: &impl.Installation{Manifest: m}}
	run := func(on bool) scenario.Run { return scenario.Run{Params: map[string]any{"consumers": on}} }
	if c := consumerOf(target, run(false), "/queue/zmq"); c != nil {
		t.Errorf("consumers: false gave %+v", c)
	}
	if c := consumerOf(target, run(true), "/queue/redis"); c != nil {
		t.Errorf("an undeclared route gave %+v", c)
	}
	pinned := run(true)
	var err error
	if pinned.CPUs.SUT, err = cpuset.Parse("0"); err != nil {
		t.Fatal(err)
	}
	if c := consumerOf(target, pinned, "/queue/zmq"); c == nil || c.name() != "php zmqserver.php" || c.cpus.String() != "0" {
		t.Errorf("consumer %+v; want php zmqserver.php on the impl's CPUs", c)
	}
	var b bytes.Buffer
	consumerText(&b, "php-x", &Record{Route: "/queue/redis", Consumers: true})
	consumerText(&b, "php-x", &Record{Route: "/queue/zmq", Consumers: true, Consumer: &ConsumerRecord{
		Command: "php zmqserver.php", Received: 1500, DrainRate: 1234.5, LagMessages: 200, LagSeconds: 0.25}})
	consumerText(&b, "php-x", &Record{Route: "/queue/zmq", Consumers: true, Consumer: &ConsumerRecord{
		Command: "php zmqserver.php", Received: 1500, DrainRate: 1234.5}})
	want := "  No consumer ran: php-x declares none for /queue/redis\n" +
		"  Consumer php zmqserver.php: received 1,500, drained 1,234.50 msg/s; 200 behind when the load ended, its last message 0.250s after\n" +
		"  Consumer php zmqserver.php: received 1,500, drained 1,234.50 msg/s; kept up (nothing left when the load ended)\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}
