package publish_test

import (
	"github.com/iobench/iobench/internal/impls/gopublisher"

	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/workload/publish"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestMain lets the test binary stand in for iobench when go-publisher's manifest runs
// `iobench serve publisher`, then runs the tests on the services of servicetest.
func TestMain(m *testing.M) {
	workloadtest.ServeMain()
	servicetest.Main(m)
}

var queueSeq atomic.Int64

// queueName is unique per test and process: packages share one broker under `make test`.
func queueName(t *testing.T) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	return fmt.Sprintf("iobench-test-%s-%d-%d", name, time.Now().UnixNano()%1e9, queueSeq.Add(1))
}

func config(t *testing.T) publish.Config {
	c := publish.DefaultConfig()
	c.URL = servicetest.URL(t, "rabbitmq")
	c.Queue = queueName(t)
	c.DrainTimeout = 20 * time.Second
	return c
}

// TestBrokerCountsEveryMode publishes a known count in every mode and checks that what the
// broker accepted, counted at the broker, equals what was sent.
func TestBrokerCountsEveryMode(t *testing.T) {
	cases := []struct {
		name string
		mod  func(c *publish.Config)
	}{
		{"transient", func(c *publish.Config) {}},
		{"transient-4-publishers", func(c *publish.Config) { c.Publishers = 4; c.Count = 5003 }},
		{"shared-connection", func(c *publish.Config) { c.Publishers = 3; c.ShareConnection = true }},
		{"persistent-confirms", func(c *publish.Config) { c.Persistent, c.QueueDurable, c.Confirm = true, true, 50 }},
		{"confirms-1", func(c *publish.Config) { c.Confirm = 1; c.Count = 500 }},
		{"seed-body", func(c *publish.Config) { c.Body = gopublisher.BodySeed }},
		{"seed-min-body", func(c *publish.Config) { c.Body = gopublisher.BodySeedMin; c.Publishers = 2 }},
		{"consumers", func(c *publish.Config) { c.Consumers = 2; c.Publishers = 2 }},
		{"consumers-confirms", func(c *publish.Config) { c.Consumers = 1; c.Confirm = 100; c.Persistent, c.QueueDurable = true, true }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := config(t)
			c.Count = 3000
			tc.mod(&c)
			rec, err := publish.Run(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			p := publish.Section(rec)
			if p.Written != c.Count || p.Accepted != c.Count {
				t.Fatalf("written %d, broker accepted %d (%s); want %d each", p.Written, p.Accepted, p.CountedBy, c.Count)
			}
			if rec.Counts.Lost != 0 || rec.Counts.Duplicated != 0 {
				t.Fatalf("lost %d, duplicated %d", rec.Counts.Lost, rec.Counts.Duplicated)
			}
			var sum, perSecond int64
			for _, pc := range p.PerPublisher {
				sum += pc.Written
			}
			for _, pt := range rec.Series {
				perSecond += pt.Completed
			}
			if sum != c.Count || perSecond != c.Count {
				t.Fatalf("per publisher sum %d, series sum %d; want %d", sum, perSecond, c.Count)
			}
			if c.Consumers > 0 {
				if p.Consumed != c.Count || rec.Latency == nil || rec.Latency.Count != c.Count {
					t.Fatalf("consumed %d, latency %+v; want %d samples", p.Consumed, rec.Latency, c.Count)
				}
			}
			if p.Broker.Mean <= 0 || p.Client.Mean <= 0 {
				t.Fatalf("rates %+v %+v", p.Broker, p.Client)
			}
			if len(rec.Processes) == 0 || rec.Processes[0].Name != "iobench" {
				t.Fatalf("processes %+v", rec.Processes)
			}
			t.Logf("%s: %.0f msg/s broker (%s), client %.0f, checks %v", tc.name, p.Broker.Mean, p.CountedBy, p.Client.Mean, p.BrokerChecks)
		})
	}
}

// TestPersistenceThroughBroker keeps the queue after a run and checks, by asking the broker,
// that the queue is durable and every message persistent, and the opposite when not asked.
func TestPersistenceThroughBroker(t *testing.T) {
	for _, persistent := range []bool{true, false} {
		t.Run(fmt.Sprint("persistent=", persistent), func(t *testing.T) {
			t.Parallel()
			c := config(t)
			c.Count, c.Persistent, c.QueueDurable, c.KeepQueue = 200, persistent, persistent, true
			if persistent {
				c.Confirm = 10
			}
			rec, err := publish.Run(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := amqp091.Dial(c.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			defer func() {
				if ch, err := conn.Channel(); err == nil {
					ch.QueueDelete(c.Queue, false, false, false)
				}
			}()
			// The broker refuses to redeclare a queue with another durability.
			ch, _ := conn.Channel()
			_, err = ch.QueueDeclare(c.Queue, !persistent, false, false, false, nil)
			var aerr *amqp091.Error
			if !errors.As(err, &aerr) || aerr.Code != amqp091.PreconditionFailed {
				t.Fatalf("redeclaring queue with durable=%v: %v; want PRECONDITION_FAILED", !persistent, err)
			}
			ch, _ = conn.Channel()
			want := uint8(amqp091.Transient)
			if persistent {
				want = amqp091.Persistent
			}
			for i := 0; i < 200; i++ {
				d, ok, err := ch.Get(c.Queue, true)
				if err != nil || !ok {
					t.Fatalf("get %d: ok=%v err=%v", i, ok, err)
				}
				if d.DeliveryMode != want {
					t.Fatalf("message %d delivery mode %d, want %d", i, d.DeliveryMode, want)
				}
			}
			found := false
			for _, s := range publish.Section(rec).BrokerChecks {
				found = found || strings.HasPrefix(s, "queue durable: "+map[bool]string{true: "yes", false: "no"}[persistent])
			}
			if !found {
				t.Fatalf("broker checks %v", publish.Section(rec).BrokerChecks)
			}
		})
	}
}

func TestDurationMode(t *testing.T) {
	t.Parallel()
	c := config(t)
	c.Count, c.Duration, c.Publishers = 0, 1500*time.Millisecond, 2
	rec, err := publish.Run(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	p := publish.Section(rec)
	if p.Written == 0 || p.Accepted != p.Written {
		t.Fatalf("written %d accepted %d", p.Written, p.Accepted)
	}
	if len(rec.Series) < 1 {
		t.Fatalf("series %v", rec.Series)
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		mod  func(c *publish.Config)
		want string
	}{
		{"no publishers", func(c *publish.Config) { c.Publishers = 0 }, "-P 0"},
		{"size below header", func(c *publish.Config) { c.Size = 10 }, "--size 10: below the 24-byte bookkeeping header"},
		{"negative confirm", func(c *publish.Config) { c.Confirm = -1 }, "--confirm -1"},
		{"persistent non-durable", func(c *publish.Config) { c.Persistent = true }, "--queue-durable"},
		{"count and duration", func(c *publish.Config) { c.Duration = time.Second }, "-n and -d"},
		{"reserved queue", func(c *publish.Config) { c.Queue = "amq.x" }, "reserved"},
		{"unreachable", func(c *publish.Config) { c.URL = "amqp://guest:guest@127.0.0.1:1/" }, "connection refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := publish.DefaultConfig()
			c.URL = "amqp://guest:guest@127.0.0.1:1/"
			tc.mod(&c)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := publish.Run(ctx, c)
			if !errors.Is(err, publish.ErrBadInput) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v; want one line of bad input containing %q", err, tc.want)
			}
		})
	}
}
