package gopublisher

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/open"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fail"
)

// BodyVar names the variable of the Go publisher impl that picks the body format of ShapeFast
// (BodySeed if unset): a variant's env in impls/go/publisher sets it, as seed 2's "ultra" run
// used a smaller body.
const BodyVar = "PUBLISH_BODY"

// ShapeVar names the variable of the Go publisher impl that picks how a variant builds, hands out
// and times its messages (ShapeFast if unset); each variant's env in impls/go/publisher sets it.
const ShapeVar = "PUBLISH_SHAPE"

// Shapes.
const (
	// ShapeSingle is seed 2's runSingleGoroutine (go/main.go): connect and declare, then the
	// clock; Sprintf and json.Marshal of {id, content, timestamp} and a new Publishing per message.
	ShapeSingle = "single"
	// ShapePool is seed 2's runWorkerPool: the clock starts before the workers dial and declare;
	// ids go to them through a channel with a buffer of 1,000; messages built as ShapeSingle's.
	ShapePool = "pool"
	// ShapeUltra is seed 2's ultra_fast_fixed.go: the clock starts before the connections are
	// dialled and declared one after another; contiguous id ranges; one reused Publishing and an
	// {id, content} body without a timestamp.
	ShapeUltra = "ultra"
	// ShapeFast is iobench's own: connected before "go", bodies written without allocating (Encode,
	// PUBLISH_BODY), one reused Publishing, ids handed out through one shared atomic counter.
	ShapeFast = "fast"
)

// connectsAfterGo says which shapes print "ready" before they connect and connect once told to
// go, so that their clock and the broker-accepted window include the connects; their manifest
// variants declare connect_after_go.
var connectsAfterGo = map[string]bool{ShapePool: true, ShapeUltra: true}

// ServeConfig is the Go publisher impl's configuration, read from the impl environment.
type ServeConfig struct {
	URL, Queue          string
	QueueDurable        bool // how iobench declared the queue: the seed shapes declare it again
	Count               int64
	Publishers          int // goroutines, a connection each
	Persistent, Confirm bool
	Shape               string
	Body                string
}

// ServeConfigFromEnv reads the one-shot publisher contract (docs/IMPLS.md): IOBENCH_AMQP_URL,
// IOBENCH_QUEUE, IOBENCH_QUEUE_DURABLE, IOBENCH_COUNT, IOBENCH_CONCURRENCY, IOBENCH_PERSISTENT,
// IOBENCH_CONFIRM, PUBLISH_SHAPE and PUBLISH_BODY.
func ServeConfigFromEnv(getenv func(string) string) (ServeConfig, error) {
	c := ServeConfig{URL: getenv(env.AMQPURL), Queue: getenv(env.Queue), QueueDurable: getenv(env.QueueDurable) == "1",
		Persistent: getenv(env.Persistent) == "1", Confirm: getenv(env.Confirm) == "1",
		Shape: getenv(ShapeVar), Body: getenv(BodyVar), Publishers: 1}
	c.Shape = cmp.Or(c.Shape, ShapeFast)
	c.Body = cmp.Or(c.Body, BodySeed)
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
	return c, c.check()
}

// check refuses what a shape cannot do.
func (c ServeConfig) check() error {
	switch {
	case c.URL == "" || c.Queue == "":
		return fail.BadInput("%s and %s must be set; the publish workload sets them", env.AMQPURL, env.Queue)
	case c.Shape != ShapeFast && c.Shape != ShapeSingle && !connectsAfterGo[c.Shape]:
		return fail.BadInput("%s=%q: use %s, %s, %s or %s", ShapeVar, c.Shape, ShapeSingle, ShapePool, ShapeUltra, ShapeFast)
	case c.Shape == ShapeFast && c.Body != BodySeed && c.Body != BodySeedMin:
		return fail.BadInput("%s=%q: use %s or %s", BodyVar, c.Body, BodySeed, BodySeedMin)
	case c.Shape != ShapeFast && c.Confirm:
		return fail.BadInput("%s=%s publishes without confirms, as the seed did; use %s=%s for confirms", ShapeVar, c.Shape, ShapeVar, ShapeFast)
	case c.Shape == ShapeSingle && c.Publishers != 1:
		return fail.BadInput("%s=%d: %s=%s is one goroutine; use %s or %s for more", env.Concurrency, c.Publishers, ShapeVar, ShapeSingle, ShapePool, ShapeUltra)
	}
	return nil
}

// runFunc publishes once told to go, t0 being when: it returns what it published and the time
// its clock stopped, measured from t0.
type runFunc func(ctx context.Context, t0 time.Time, lines *log.Logger) (int64, time.Duration, error)

// Serve is the Go publisher as an impl (`iobench serve publisher`): it connects (ShapeSingle,
// ShapeFast; the other shapes connect after "go"), prints "ready", waits for a line on in,
// publishes Count messages to Queue from Publishers goroutines (seed 2's Go runs: a connection
// each, the default exchange), and prints "result sent=N seconds=S", timed as c.Shape's seed code
// timed itself. The workload counts at the broker; this is the impl's own account.
func Serve(ctx context.Context, c ServeConfig, in io.Reader, out io.Writer) error {
	lines := log.New(out, "", 0) // one write per line, from several goroutines (progress lines)
	run, closeAll, err := prepare(ctx, c)
	defer closeAll()
	if err != nil {
		return err
	}
	lines.Print("ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start line on standard input: %w", err)
	}
	sent, elapsed, err := run(ctx, time.Now(), lines)
	lines.Printf("result sent=%d seconds=%.6f", sent, elapsed.Seconds())
	return err
}

// prepare does what c.Shape does before "go" and returns the rest, and what closes what it opened.
func prepare(ctx context.Context, c ServeConfig) (runFunc, func(), error) {
	switch c.Shape {
	case ShapeSingle:
		sc, err := dialSeed(c.URL, newSeedQueue(c), false)
		if err != nil {
			return nil, func() {}, err
		}
		return func(ctx context.Context, t0 time.Time, lines *log.Logger) (int64, time.Duration, error) {
			return c.runSingle(ctx, sc, t0, lines)
		}, sc.close, nil
	case ShapePool:
		return c.runPool, func() {}, nil
	case ShapeUltra:
		return c.runUltra, func() {}, nil
	}
	pubs, closeAll, err := connectFast(ctx, c)
	return func(ctx context.Context, t0 time.Time, _ *log.Logger) (int64, time.Duration, error) {
		sent, err := publishAll(ctx, c, pubs)
		return sent, time.Since(t0), err
	}, closeAll, err
}

// connectFast opens ShapeFast's connection and channel per publisher.
func connectFast(ctx context.Context, c ServeConfig) ([]backend.Publisher, func(), error) {
	var closers []func() error
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i]()
		}
	}
	pubs := make([]backend.Publisher, c.Publishers)
	for i := range pubs {
		b, err := open.Broker(ctx, c.URL)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, b.Close)
		if pubs[i], err = b.Publisher(ctx, backend.PublisherConfig{Queue: c.Queue, Persistent: c.Persistent, Confirm: c.Confirm}); err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, pubs[i].Close)
	}
	return pubs, closeAll, nil
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
