package cachequeue

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
)

// fakeKV counts Incrs, or fails them with err.
type fakeKV struct {
	backend.KV
	n   atomic.Int64
	err error
}

func (f *fakeKV) Incr(context.Context, string) (int64, error) {
	if f.err != nil {
		return 0, f.err
	}
	return f.n.Add(1), nil
}

// fakeQueue counts Pushes and tracks how many run at once, each taking wait.
type fakeQueue struct {
	backend.WorkQueue
	wait              time.Duration
	mu                sync.Mutex
	pushed, now, most int
}

func (f *fakeQueue) Push(context.Context, []byte) error {
	f.mu.Lock()
	f.pushed++
	f.now++
	f.most = max(f.most, f.now)
	f.mu.Unlock()
	time.Sleep(f.wait)
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
	return nil
}

// serveFake serves s (its clients fakes) on a free port until the test ends.
func serveFake(t *testing.T, s *Service) string {
	t.Helper()
	s.init()
	return rawhttptest.URL(t, s.Serve)
}

// TestAnswers: every route's status, Content-Type and body as net/http's handlers gave them,
// a store's error as a 500 with its message, anything else a 404 naming the routes.
func TestAnswers(t *testing.T) {
	redis := &fakeKV{}
	s := &Service{redisKV: redis, memcached: &fakeKV{err: errors.New("memcached: incr \"visits\": down")},
		list: &fakeQueue{}, zmq: &fakeQueue{}}
	base := serveFake(t, s)
	const noRoute = "; use /cache/{fake,memcached,redis} or /queue/{fake,zmq,redis}\n"
	for _, tt := range []struct {
		method, path string
		status       int
		body         string
		nosniff      bool
	}{
		{"GET", "/cache/fake", 200, "0\n", false},
		{"GET", "/cache/redis", 200, "1\n", false},
		{"GET", "/cache/redis?x=1", 200, "2\n", false},
		{"HEAD", "/cache/redis", 200, "", false}, // counted, as net/http ran GET's handler for HEAD
		{"GET", "/cache/redis", 200, "4\n", false},
		{"GET", "/cache/memcached", 500, "memcached: incr \"visits\": down\n", true},
		{"GET", "/queue/fake", 200, "", false},
		{"GET", "/queue/redis", 200, "", false},
		{"GET", "/queue/zmq", 200, "", false},
		{"GET", "/cache/predis", 404, "no route /cache/predis" + noRoute, true},
		{"GET", "/nope", 404, "no route /nope" + noRoute, true},
		{"POST", "/cache/redis", 404, "no route /cache/redis" + noRoute, true},
	} {
		req, _ := http.NewRequest(tt.method, base+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != tt.status || string(body) != tt.body || h.Get("Content-Type") != "text/plain; charset=utf-8" ||
			(h.Get("X-Content-Type-Options") == "nosniff") != tt.nosniff {
			t.Errorf("%s %s: %d %q %v; want %d %q", tt.method, tt.path, resp.StatusCode, body, h, tt.status, tt.body)
		}
	}
	if n := redis.n.Load(); n != 4 {
		t.Errorf("%d INCRs, want 4", n)
	}
}

// TestWorkersBoundConcurrency: the sync variant's pool handles at most Workers requests at once.
func TestWorkersBoundConcurrency(t *testing.T) {
	q := &fakeQueue{wait: 20 * time.Millisecond}
	base := serveFake(t, &Service{Workers: 2, redisKV: &fakeKV{}, memcached: &fakeKV{}, list: q, zmq: &fakeQueue{}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, err := http.Get(base + "/queue/redis")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if q.pushed != 8 || q.most != 2 {
		t.Fatalf("%d pushes, at most %d at once; want 8, 2", q.pushed, q.most)
	}
}
