package service

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"amqp://guest:guest@127.0.0.1:5672/", "amqp://guest:xxxxx@127.0.0.1:5672/"},
		{"amqp://guest:guest@127.0.0.1:5672", "amqp://guest:xxxxx@127.0.0.1:5672"},
		{"postgres://postgres@127.0.0.1:5432/iobench?sslmode=disable", "postgres://postgres@127.0.0.1:5432/iobench?sslmode=disable"},
		{"postgres://u:p%40ss@db:5432/x?sslmode=disable", "postgres://u:xxxxx@db:5432/x?sslmode=disable"},
		{"postgres://u@db/x?sslmode=disable&password=secret", "postgres://u@db/x?sslmode=disable&password=xxxxx"},
		{"postgres://db/x?Password=s#frag", "postgres://db/x?Password=xxxxx#frag"},
		{"redis://:secret@127.0.0.1:6379/0", "redis://:xxxxx@127.0.0.1:6379/0"},
		{"redis://default:a:b@h:1", "redis://default:xxxxx@h:1"},
		{"redis://user@h:1", "redis://user@h:1"},
		{"nats://tok@127.0.0.1:4222", "nats://tok@127.0.0.1:4222"},
		{"memcached://127.0.0.1:11211", "memcached://127.0.0.1:11211"},
		{"127.0.0.1:11211", "127.0.0.1:11211"},
		{"", ""},
		{"amqp://", "amqp://"},
		{"amqp://a:b@", "amqp://a:xxxxx@"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("guest", "guest", "127.0.0.1:5672", "/")
	f.Add("u", "p%40ss", "db", "/x?sslmode=disable&password=y")
	f.Fuzz(func(t *testing.T, user, pass, host, rest string) {
		if pass == "" || strings.ContainsAny(user, ":@/?#") || strings.ContainsAny(pass+host, "@/?#") ||
			(rest != "" && !strings.ContainsAny(rest[:1], "/?#")) {
			return
		}
		in := "amqp://" + user + ":" + pass + "@" + host + rest
		out := Redact(in)
		if want := "amqp://" + user + ":xxxxx@" + host; !strings.HasPrefix(out, want) {
			t.Errorf("Redact(%q) = %q; want prefix %q", in, out, want)
		}
		if Redact(out) != out {
			t.Errorf("Redact not idempotent: %q -> %q -> %q", in, out, Redact(out))
		}
	})
}

func TestNames(t *testing.T) {
	names := Names()
	if len(names) != 5 {
		t.Fatalf("Names() = %v", names)
	}
	for _, n := range names {
		if EnvName(n) == "" {
			t.Errorf("%s has no environment variable", n)
		}
	}
	if _, err := Ensure(context.Background(), "sqlite", Options{}); !errors.Is(err, ErrUnknown) {
		t.Errorf("Ensure(sqlite) = %v; want ErrUnknown", err)
	}
}

func TestInstalledMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for v, dir := range map[*string]string{&rabbitLibDir: t.TempDir(), &pgRoot: t.TempDir()} {
		old := *v
		*v = dir
		t.Cleanup(func() { *v = old })
	}
	want := "rabbitmq: rabbitmq-server not found; install it with scripts/install-services.sh (apt-get install rabbitmq-server) or pass --amqp-url"
	if err := Installed("rabbitmq"); err == nil || err.Error() != want {
		t.Errorf("Installed(rabbitmq) = %v\nwant %s", err, want)
	}
	for _, name := range LocalNames() {
		err := Installed(name)
		if !errors.Is(err, ErrNotInstalled) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), name+": ") ||
			!strings.Contains(err.Error(), "scripts/install-services.sh") || !strings.Contains(err.Error(), "--") {
			t.Errorf("Installed(%s) = %v; want one line naming the installer and the flag", name, err)
		}
		if _, serr := Start(context.Background(), name, testOptions(t)); serr == nil || serr.Error() != err.Error() {
			t.Errorf("Start(%s) = %v; want %v", name, serr, err)
		}
	}
	if err := Installed("nats"); err != nil {
		t.Errorf("Installed(nats) = %v; want nil (embedded)", err)
	}
}

func TestStateDirNotWritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), "redis", Options{StateDir: filepath.Join(file, "state")})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--state-dir") {
		t.Errorf("err = %v; want one line suggesting --state-dir", err)
	}
}

func TestDefaultStateDir(t *testing.T) {
	t.Setenv("IOBENCH_STATE_DIR", "/some/where")
	if got := DefaultStateDir(); got != "/some/where" {
		t.Errorf("DefaultStateDir() = %s", got)
	}
	t.Setenv("IOBENCH_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", "/xdg")
	want := "/xdg/iobench"
	if isRoot() {
		want = "/var/lib/iobench"
	}
	if got := DefaultStateDir(); got != want {
		t.Errorf("DefaultStateDir() = %s, want %s", got, want)
	}
}

// TestStartFailureKeepsLog runs a "server" that dies at once: the error must be one line ending
// with its last log lines, and the directory must be kept.
func TestStartFailureKeepsLog(t *testing.T) {
	bin := t.TempDir()
	os.Chmod(bin, 0o755)
	os.Chmod(filepath.Dir(bin), 0o755)
	script := "#!/bin/sh\necho 'first line'\necho '# Fatal: bad config' >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	_, err := Start(context.Background(), "redis", testOptions(t))
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v; want *StartError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "exited before it was ready") || !strings.HasSuffix(msg, "first line | # Fatal: bad config") {
		t.Errorf("err = %s", msg)
	}
	if _, err := os.Stat(se.Log); err != nil {
		t.Errorf("log not kept: %v", err)
	}
}

func TestParseProcAddr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0100007F:1F90", "127.0.0.1:8080"},
		{"00000000:0016", "0.0.0.0:22"},
		{"00000000000000000000000001000000:1538", "[::1]:5432"},
	}
	for _, tt := range tests {
		a, ok := parseProcAddr(tt.in)
		if !ok || a.String() != tt.want {
			t.Errorf("parseProcAddr(%s) = %v, %v; want %s", tt.in, a, ok, tt.want)
		}
	}
}

// TestEnsureExternal points the environment at servers of our own and at nothing.
func TestEnsureExternal(t *testing.T) {
	ctx := context.Background()
	opts := testOptions(t)
	redis, err := Start(ctx, "redis", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer redis.Stop(ctx)
	mc, err := Start(ctx, "memcached", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Stop(ctx)

	t.Run("redis url", func(t *testing.T) {
		t.Setenv("IOBENCH_REDIS_URL", redis.URL)
		inst, err := Ensure(ctx, "redis", opts)
		if err != nil {
			t.Fatal(err)
		}
		if inst.Kind != KindExternal || inst.Owned || inst.URL != redis.URL || inst.Version != redis.Version || inst.PIDs() != nil {
			t.Errorf("instance = %+v", inst)
		}
		if err := inst.Stop(ctx); err != nil || !dialOK(urlPort(t, redis.URL)) {
			t.Errorf("Stop of an external instance must do nothing (err %v)", err)
		}
	})
	t.Run("memcached addr", func(t *testing.T) {
		addr := strings.TrimPrefix(mc.URL, "memcached://")
		t.Setenv("IOBENCH_MEMCACHED_ADDR", addr)
		inst, err := Ensure(ctx, "memcached", opts)
		if err != nil {
			t.Fatal(err)
		}
		if inst.URL != mc.URL || inst.EnvValue() != addr || inst.EnvName() != "IOBENCH_MEMCACHED_ADDR" {
			t.Errorf("instance = %+v, env %s=%s", inst, inst.EnvName(), inst.EnvValue())
		}
	})
	free, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	releasePort(free)
	bad := []struct{ env, name, value, want string }{
		{"IOBENCH_REDIS_URL", "redis", "redis://127.0.0.1:" + strconv.Itoa(free), "does not answer"},
		{"IOBENCH_DATABASE_URL", "postgres", "postgres://u:topsecret@127.0.0.1:" + strconv.Itoa(free) + "/x", "does not answer"},
		{"IOBENCH_AMQP_URL", "rabbitmq", "http://127.0.0.1/", "is not a URL like amqp://"},
		{"IOBENCH_NATS_URL", "nats", "nats://127.0.0.1:" + strconv.Itoa(free), "does not answer"},
	}
	for _, b := range bad {
		t.Run(b.env, func(t *testing.T) {
			t.Setenv(b.env, b.value)
			_, err := Ensure(ctx, b.name, opts)
			if err == nil {
				t.Fatal("Ensure succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, b.env) || !strings.Contains(msg, b.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "topsecret") {
				t.Errorf("err = %s; want one line naming %s, saying %q, without the password", msg, b.env, b.want)
			}
		})
	}
}

func TestFreePortsDistinct(t *testing.T) {
	ps, err := freePorts(50)
	if err != nil {
		t.Fatal(err)
	}
	defer releasePorts(ps...)
	seen := map[int]bool{}
	for _, p := range ps {
		if seen[p] || p < portLow || p >= ephemeralLow() {
			t.Errorf("port %d repeated or out of range", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Errorf("port %d not free: %v", p, err)
			continue
		}
		l.Close()
	}
}
