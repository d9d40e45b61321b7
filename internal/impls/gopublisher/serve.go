package gopublisher

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fail"
)

// BodyVar names the variable of the Go publisher impl that picks the body format (BodySeed if
// unset): a variant's env in impls/go/publisher sets it, as seed 2's "ultra" run used a smaller
// body.
const BodyVar = "PUBLISH_BODY"

// ServeConfig is the Go publisher impl's configuration, read from the impl environment.
type ServeConfig struct {
	URL, Queue          string
	Count               int64
	Publishers          int // goroutines, a connection each
	Persistent, Confirm bool
	Body                string
}

// ServeConfigFromEnv reads the one-shot publisher contract (docs/IMPLS.md): IOBENCH_AMQP_URL,
// IOBENCH_QUEUE, IOBENCH_COUNT, IOBENCH_CONCURRENCY, IOBENCH_PERSISTENT, IOBENCH_CONFIRM, and
// PUBLISH_BODY.
func ServeConfigFromEnv(getenv func(string) string) (ServeConfig, error) {
	c := ServeConfig{URL: getenv(env.AMQPURL), Queue: getenv(env.Queue), Persistent: getenv(env.Persistent) == "1",
		Confirm: getenv(env.Confirm) == "1", Body: getenv(BodyVar), Publishers: 1}
	if c.Body == "" {
		c.Body = BodySeed
	}
	count, err := strconv.ParseInt(getenv(env.Count), 10, 64)
	if err != nil || count < 1 {
		return c, fail.BadInput("%s=%q: give the number of messages to publish", env.Count, getenv(env.Count))
	}
	c.Count = count
	if s := getenv(env.Concurrency); s != "" {
		if c.Publishers, err = strconv.Atoi(s); err != nil || c.Publishers < 1 {
			return c, fail.BadInput("%s=%q: give the number of publishers, at least 1", env.Concurrency, s)
		}
	}
	switch {
	case c.URL == "" || c.Queue == "":
		return c, fail.BadInput("%s and %s must be set; the publish workload sets them", env.AMQPURL, env.Queue)
	case c.Body != BodySeed && c.Body != BodySeedMin:
		return c, fail.BadInput("%s=%q: use %s or %s", BodyVar, c.Body, BodySeed, BodySeedMin)
	}
	return c, nil
}

// Serve is the Go publisher as an impl (`iobench serve publisher`): it opens a connection per
// publisher, prints "ready", waits for a line on in, publishes Count messages to Queue from
// Publishers goroutines (seed 2's Go runs: a connection each, the default exchange), and prints
// "result sent=N seconds=S". The workload counts at the broker; this is the impl's own account.
func Serve(ctx context.Context, c ServeConfig, in io.Reader, out io.Writer) error {
	pubs := make([]backend.Publisher, c.Publishers)
	for i := range pubs {
		b, err := open.Broker(ctx, c.URL)
		if err != nil {
			return err
		}
		defer b.Close()
		if pubs[i], err = b.Publisher(ctx, backend.PublisherConfig{Queue: c.Queue, Persistent: c.Persistent, Confirm: c.Confirm}); err != nil {
			return err
		}
		defer pubs[i].Close()
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start line on standard input: %w", err)
	}
	t0 := time.Now()
	sent, err := publishAll(ctx, c, pubs)
	fmt.Fprintf(out, "result sent=%d seconds=%.6f\n", sent, time.Since(t0).Seconds())
	return err
}

// publishAll publishes c.Count messages, numbered from 1, shared out among the publishers.
func publishAll(ctx context.Context, c ServeConfig, pubs []backend.Publisher) (int64, error) {
	var next, sent atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, len(pubs))
	for i, p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := NewBody(c.Body, 0)
			for seq := next.Add(1); seq <= c.Count && ctx.Err() == nil; seq = next.Add(1) {
				if errs[i] = p.Publish(ctx, Encode(buf, c.Body, uint64(seq), i, time.Now())); errs[i] != nil {
					return
				}
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return sent.Load(), err
		}
	}
	return sent.Load(), ctx.Err()
}
