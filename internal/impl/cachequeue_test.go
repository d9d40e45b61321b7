package impl

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/sut"
)

// cachequeue is a started impls/php/cachequeue with its stores, for the tests below.
type cachequeue struct {
	inst  *Installation
	p     *Process
	addr  string            // nginx's address
	vars  map[string]string // the run's IOBENCH_* environment
	redis string            // redis://...
	mc    string            // memcached host:port
}

// startCachequeue installs and checks impls/php/cachequeue and starts it through Start (PHP-FPM
// with 2 workers behind nginx) against a private Redis and Memcached, since the seed's keys are
// fixed and a shared server could be moved by other tests, with its ZeroMQ endpoint in a private
// directory.
func startCachequeue(t *testing.T) *cachequeue {
	t.Helper()
	ctx := t.Context()
	state := enterableTempDir(t) // nginx runs as www-data when we are root
	m, err := Find("../../impls", "php-cachequeue")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := Install(ctx, m, InstallOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(ctx); err != nil {
		t.Fatal(err) // scripts/install-services.sh installs everything it needs
	}
	redis, mc := privateService(t, "redis", state), privateService(t, "memcached", state)
	zmqDir := filepath.Join(state, "zmq")
	if err := os.Mkdir(zmqDir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cachequeue{inst: inst, addr: freeAddr(t), redis: redis.URL, mc: mc.EnvValue()}
	c.vars = map[string]string{
		env.Listen: c.addr, env.RedisURL: c.redis, env.MemcachedAddr: c.mc,
		env.ZMQEndpoint: "ipc://" + zmqDir + "/queue.sock", env.Concurrency: "2",
	}
	if c.p, err = inst.Start(ctx, StartOptions{Env: c.vars, StateDir: state}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.p.Stop() })
	return c
}

// TestPHPCachequeue sends each route of impls/php/cachequeue through nginx and PHP-FPM and
// checks, in the stores, that it did exactly what the seed's app does; then that stopping leaves
// nothing behind.
func TestPHPCachequeue(t *testing.T) {
	c := startCachequeue(t)
	p := c.p
	fpmPIDs, nginxPIDs := procstat.Tree(p.PID()), p.Front.PIDs()
	t.Logf("PHP-FPM %s (%d workers, %s), nginx %s (%d workers) on %s", p.FPM.Version, p.FPM.Workers, p.FPM.Listen, p.Front.Version, p.Front.Workers, c.addr)
	if p.FPM.Workers != 2 || len(fpmPIDs) != 3 || !strings.HasPrefix(p.FPM.Listen, "unix:") {
		t.Errorf("PHP-FPM %+v with processes %v; want a master and 2 workers on a unix socket", p.FPM, fpmPIDs)
	}
	if v := p.Versions(); v["php-fpm"] != p.FPM.Version || v["nginx"] != p.Front.Version {
		t.Errorf("versions %v", v)
	}
	if p.Front.Name != "nginx" || p.Front.Version == "" || p.Front.Workers != runtime.NumCPU() || len(nginxPIDs) != 1+runtime.NumCPU() {
		t.Errorf("front %+v with processes %v; want nginx with one worker per core", p.Front, nginxPIDs)
	}

	t.Run("fake", c.testFake)
	t.Run("cache", c.testCache)
	t.Run("queue", c.testQueue)
	t.Run("not found", c.testNotFound)
	t.Run("load", c.testLoad)

	fpmDir := filepath.Dir(strings.TrimPrefix(p.FPM.Listen, "unix:"))
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range append(fpmPIDs, nginxPIDs...) {
		if st, err := procstat.ReadStat(pid); err == nil && !st.Zombie() {
			t.Errorf("process %d still running after Stop", pid)
		}
	}
	if left := procstat.Group(p.PID()); len(left) > 0 {
		t.Errorf("PHP-FPM's process group still has %v", left)
	}
	for _, dir := range []string{fpmDir, p.Front.Dir} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still there after Stop (%v)", dir, err)
		}
	}
	if conn, err := net.DialTimeout("tcp", c.addr, time.Second); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after Stop", c.addr)
	}
}

// storeState is every key the app may touch.
type storeState struct {
	visits1, visits0, queue1, queue0 int
	memcached                        string
}

func (c *cachequeue) state(t *testing.T) storeState {
	t.Helper()
	mc, _ := memcachedGet(t, c.mc, "visits")
	return storeState{
		visits1: redisInt(t, c.redis, 1, "GET", "visits"), visits0: redisInt(t, c.redis, 0, "GET", "visits"),
		queue1: redisInt(t, c.redis, 1, "LLEN", "queue"), queue0: redisInt(t, c.redis, 0, "LLEN", "queue"),
		memcached: mc,
	}
}

// expect asks for path and fails the test unless the answer is status and body.
func (c *cachequeue) expect(t *testing.T, path string, status int, body string) {
	t.Helper()
	code, got := c.get(t, path)
	if code != status || got != body {
		t.Errorf("GET %s = %d %q; want %d %q", path, code, got, status, body)
	}
}

func (c *cachequeue) get(t *testing.T, path string) (int, string) {
	t.Helper()
	code, body, err := c.fetch(path)
	if err != nil {
		t.Fatal(err)
	}
	return code, body
}

// fetch asks for path on a kept-alive connection.
func (c *cachequeue) fetch(path string) (int, string, error) {
	resp, err := http.Get("http://" + c.addr + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// testFake: the fake drivers answer like the others and touch no store.
func (c *cachequeue) testFake(t *testing.T) {
	before := c.state(t)
	for range 3 {
		c.expect(t, "/cache/fake", 200, "0\n")
		c.expect(t, "/queue/fake", 200, "")
	}
	if after := c.state(t); after != before {
		t.Errorf("fake routes moved the stores: %+v -> %+v", before, after)
	}
}

// testCache: phpredis counts on DB 1, Predis on DB 0, Memcached creates the key at 0.
func (c *cachequeue) testCache(t *testing.T) {
	for i := 1; i <= 5; i++ {
		c.expect(t, "/cache/redis", 200, fmt.Sprintf("%d\n", i))
	}
	for i := 1; i <= 4; i++ {
		c.expect(t, "/cache/predis", 200, fmt.Sprintf("%d\n", i))
	}
	for i := 0; i <= 3; i++ { // binary increment with initial value 0: the first one creates "0"
		c.expect(t, "/cache/memcached", 200, fmt.Sprintf("%d\n", i))
	}
	if s := c.state(t); s != (storeState{visits1: 5, visits0: 4, memcached: "3"}) {
		t.Errorf("stores %+v; want visits 5 on DB 1, 4 on DB 0, memcached 3 and no queue", s)
	}
}

// testQueue: both Redis clients LPUSH "visit" on DB 1 and redispopper pops them all; ZeroMQ
// pushes wait in the PUSH sockets until zmqserver binds, which then receives every one.
func (c *cachequeue) testQueue(t *testing.T) {
	for range 3 {
		c.expect(t, "/queue/redis", 200, "")
		c.expect(t, "/queue/predis", 200, "")
	}
	if n := redisInt(t, c.redis, 1, "LLEN", "queue"); n != 6 {
		t.Errorf("DB 1 queue holds %d, want 6", n)
	}
	if v := redisCmd(t, c.redis, 1, "LINDEX", "queue", "-1"); v != "visit" {
		t.Errorf("oldest message %q, want visit", v)
	}
	if n := redisInt(t, c.redis, 0, "LLEN", "queue"); n != 0 {
		t.Errorf("DB 0 queue holds %d, want 0", n)
	}
	popper := c.consumer(t, "redispopper.php")
	waitFor(t, "redispopper to empty the queue", func() bool { return redisInt(t, c.redis, 1, "LLEN", "queue") == 0 })
	popper.stop(t, 6)

	for range 3 {
		c.expect(t, "/queue/zmq", 200, "") // no peer yet: queued in the PUSH sockets
	}
	server := c.consumer(t, "zmqserver.php")
	for range 4 {
		c.expect(t, "/queue/zmq", 200, "")
	}
	waitFor(t, "zmqserver to receive 7", func() bool { return server.processed() == 7 })
	server.stop(t, 7)
}

// testNotFound: an unknown route or driver is a 404 with one line saying what exists.
func (c *cachequeue) testNotFound(t *testing.T) {
	c.expect(t, "/cache/nosuch", 404, "no cache driver \"nosuch\"; use one of fake, memcached, redis, predis\n")
	c.expect(t, "/queue/memcached", 404, "no queue driver \"memcached\"; use one of fake, zmq, redis, predis\n")
	for _, path := range []string{"/", "/cache", "/cache/", "/nosuch/redis", "/cache/redis/extra", "/fake"} {
		c.expect(t, path, 404, "no route "+path+"; use /cache/{driver} or /queue/{driver}\n")
	}
}

// testLoad: 8 connections × 50 requests on /cache/redis move the counter by exactly 400, each
// answer a value of its own.
func (c *cachequeue) testLoad(t *testing.T) {
	const conns, each = 8, 50
	before := redisInt(t, c.redis, 1, "GET", "visits")
	seen := make(chan string, conns*each)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for range each {
				code, body, err := c.fetch("/cache/redis")
				if err != nil || code != 200 {
					t.Errorf("GET /cache/redis: %d %q %v", code, body, err)
				}
				seen <- body
			}
		})
	}
	wg.Wait()
	close(seen)
	distinct := map[string]bool{}
	for b := range seen {
		distinct[b] = true
	}
	if after := redisInt(t, c.redis, 1, "GET", "visits"); after-before != conns*each || len(distinct) != conns*each {
		t.Errorf("counter %d -> %d with %d distinct answers; want +%d, all distinct", before, after, len(distinct), conns*each)
	}
}

// consumerProc is one of the seed's consumers running beside the app.
type consumerProc struct {
	p     *sut.Process
	mu    sync.Mutex
	lines []string
}

var processedRE = regexp.MustCompile(`^Processed (\d+) entries$`)

// consumer starts `php SCRIPT` in the impl's folder with the run's environment, ready once it
// prints "ready".
func (c *cachequeue) consumer(t *testing.T, script string) *consumerProc {
	t.Helper()
	cp := &consumerProc{}
	vars := sut.Environ()
	for k, v := range c.vars {
		vars = sut.SetEnv(vars, k+"="+v)
	}
	p, err := sut.Start(t.Context(), sut.Options{
		Argv: []string{"php", script}, Dir: c.inst.Manifest.Dir, Env: vars,
		Ready:    sut.Ready{Log: regexp.MustCompile(`^ready$`), Timeout: 10 * time.Second},
		OnLine:   func(l string) { cp.mu.Lock(); cp.lines = append(cp.lines, l); cp.mu.Unlock() },
		StateDir: c.inst.stateDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	cp.p = p
	t.Cleanup(func() { _ = p.Stop() })
	return cp
}

// processed sums the consumer's "Processed N entries" lines.
func (cp *consumerProc) processed() int {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	n := 0
	for _, l := range cp.lines {
		if m := processedRE.FindStringSubmatch(l); m != nil {
			var k int
			fmt.Sscan(m[1], &k)
			n += k
		}
	}
	return n
}

// stop stops the consumer with SIGTERM and checks the total it reports, and that its last
// progress line, written when the queue ran dry, said so with a recent time.
func (cp *consumerProc) stop(t *testing.T, total int) {
	t.Helper()
	_ = cp.p.Stop()
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if want := fmt.Sprintf("total %d", total); len(cp.lines) == 0 || cp.lines[len(cp.lines)-1] != want {
		t.Errorf("consumer said %q; want it to end with %q", cp.lines, want)
	}
	var n int
	var at float64
	for _, l := range cp.lines {
		fmt.Sscanf(l, "received %d %f", &n, &at)
	}
	if ago := time.Since(time.UnixMicro(int64(at * 1e6))); n != total || ago < 0 || ago > 10*time.Second {
		t.Errorf("last progress line: received %d, %v ago; want %d within the test", n, ago, total)
	}
}

// waitFor polls cond every 50 ms for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond) // polling a store or a process, not goroutines
	}
}

// privateService starts a private instance of a local service, stopped at the end of the test.
func privateService(t *testing.T, name, state string) *service.Instance {
	t.Helper()
	inst, err := service.Start(t.Context(), name, service.Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Stop(t.Context()) })
	return inst
}

// enterableTempDir is a t.TempDir that other users (the services' and nginx's) can enter.
func enterableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// freeAddr is a 127.0.0.1 address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := sut.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}
