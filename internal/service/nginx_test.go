package service

import (
	"bufio"
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// TestNginxPHPFPM runs a PHP-FPM pool prepared here behind a private nginx: requests reach the
// front controller with the URI, the environment and the php.ini settings (a preload script's
// class among them) given to PHP-FPM, the pool has exactly the
// workers asked for, it loads only the extensions listed, nginx listens on loopback only (as www-data when root), and stopping both
// leaves no process and no directory behind.
func TestNginxPHPFPM(t *testing.T) {
	t.Parallel()
	if err := Installed("nginx"); err != nil {
		t.Fatal(err) // scripts/install-services.sh installs it
	}
	ctx := context.Background()
	opts := testOptions(t)
	root := filepath.Join(opts.StateDir, "public")
	script := filepath.Join(root, "index.php")
	mkdir(t, root)
	writeFile(t, script, `<?php echo getenv('IOBENCH_TEST_VALUE'), ' ', $_SERVER['REQUEST_URI'], ' ', ini_get('memory_limit'), ' ', class_exists('Preloaded', false) ? 'preloaded' : 'not preloaded',
		' ', implode(',', array_filter(['curl', 'posix'], 'extension_loaded')), "\n";`)
	preload := filepath.Join(opts.StateDir, "preload.php")
	writeFile(t, preload, `<?php final class Preloaded {}`)
	poolDir := filepath.Join(opts.StateDir, "fpm")
	mkdir(t, poolDir)

	ini := map[string]string{"memory_limit": "77M", "opcache.preload": preload}
	// posix is enabled in conf.d wherever PHP-FPM is (php8.2-common), but not listed: not loaded.
	fpm, err := PHPFPMPool{Dir: poolDir, Workers: 3, INI: ini, Extensions: []string{"opcache", "curl"}}.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fpm.Workers != 3 || fpm.Version == "" || fpm.Listen != "unix:"+filepath.Join(poolDir, "php-fpm.sock") {
		t.Errorf("command = %+v; want 3 workers, a version and the pool's socket", fpm)
	}
	leader := runFPM(t, fpm)
	if n := len(procstat.Tree(leader)) - 1; n != 3 {
		t.Errorf("PHP-FPM has %d workers, want 3 (pm = static)", n)
	}

	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	releasePort(port)
	inst, err := StartNginx(ctx, NginxSite{Port: port, Root: root, Script: script, FastCGI: fpm.Listen, Workers: 1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(ctx)
	t.Logf("nginx %s on %s in %v, PHP-FPM %s on %s", inst.Version, inst.URL, inst.Startup.Round(time.Millisecond), fpm.Version, fpm.Listen)
	if inst.Kind != KindLocal || !inst.Owned || inst.Version == "" || inst.Workers != 1 || inst.Dir != filepath.Join(opts.StateDir, "nginx-"+strconv.Itoa(port)) {
		t.Errorf("instance = %+v; want local, owned, versioned, 1 worker, in its state dir", inst)
	}
	resp, err := http.Get(inst.URL + "/cache/redis?x=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "from-env /cache/redis?x=1 77M preloaded curl\n"; resp.StatusCode != 200 || string(body) != want {
		t.Errorf("GET /cache/redis?x=1 = %d %q; want 200 %q", resp.StatusCode, body, want)
	}
	pids := inst.PIDs()
	if len(pids) != 2 {
		t.Errorf("nginx processes %v; want a master and 1 worker", pids)
	}
	addrs := listenersOf(pids)
	for _, a := range addrs {
		if a.IP.String() != "127.0.0.1" || a.Port != port {
			t.Errorf("nginx listens on %s, want 127.0.0.1:%d only", a.IP, port)
		}
	}
	if isRoot() {
		if fi, err := os.Stat("/proc/" + strconv.Itoa(pids[0])); err == nil && fi.Sys().(*syscall.Stat_t).Uid == 0 {
			t.Errorf("nginx runs as root; want www-data")
		}
	}
	sessions := append([]*proc(nil), inst.procs...)
	if err := inst.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pids, sessions, addrs)
	if _, err := os.Stat(inst.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nginx dir %s still there after Stop (%v)", inst.Dir, err)
	}
}

// runFPM starts PHP-FPM as its own process group, waits for its ready line and returns its pid;
// the group is killed at the end of the test.
func runFPM(t *testing.T, fpm *PHPFPMCommand) int {
	t.Helper()
	cmd := exec.Command(fpm.Argv[0], fpm.Argv[1:]...)
	cmd.Env = append(append(os.Environ(), "IOBENCH_TEST_VALUE=from-env"), fpm.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log("php-fpm: " + sc.Text())
			if fpm.Ready.MatchString(sc.Text()) {
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("PHP-FPM not ready after 20 s")
	}
	return cmd.Process.Pid
}

// TestPHPFPMUnknownExtension: a pool asked for an extension PHP-FPM's conf.d does not enable is
// refused before it starts, with the name.
func TestPHPFPMUnknownExtension(t *testing.T) {
	_, err := PHPFPMPool{Dir: t.TempDir(), Extensions: []string{"opcache", "nosuchext"}}.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), `"nosuchext" is not enabled`) {
		t.Errorf("Prepare = %v; want an error naming nosuchext", err)
	}
}

// TestPHPFPMExtensionNeedsAnother: an extension listed without one it needs first (Debian's
// php-redis needs igbinary) is not loaded, and the pool is refused, with its name.
func TestPHPFPMExtensionNeedsAnother(t *testing.T) {
	if _, err := os.Stat("/etc/php/8.2/fpm/conf.d/20-redis.ini"); err != nil && os.Getenv("CI") == "" {
		t.Skip("php8.2-redis is not installed (scripts/install-services.sh installs it)")
	}
	_, err := PHPFPMPool{Dir: t.TempDir(), Extensions: []string{"redis"}}.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), "does not load redis") {
		t.Errorf("Prepare = %v; want an error saying redis is not loaded", err)
	}
}

// TestExtensionINIs: every way an .ini line loads an extension is read, comments are not.
func TestExtensionINIs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "10-opcache.ini"), "; priority=10\nzend_extension=opcache.so\n")
	writeFile(t, filepath.Join(dir, "20-curl.ini"), "extension = \"curl\" ; the client\n")
	writeFile(t, filepath.Join(dir, "20-off.ini"), ";extension=redis.so\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "extension=zmq.so\n")
	got, err := extensionINIs(dir)
	if want := map[string]string{"opcache": "10-opcache.ini", "curl": "20-curl.ini"}; err != nil || !maps.Equal(got, want) {
		t.Errorf("extensionINIs = %v, %v; want %v", got, err, want)
	}
}

// TestPHPFPMConf checks the pool's configuration (static, never recycled, the environment kept)
// and that neither it nor nginx's reads anything of the system's.
func TestPHPFPMConf(t *testing.T) {
	conf := phpFPMConf("/s/fpm", "/s/fpm/php-fpm.sock", 4)
	for _, want := range []string{"pid = /s/fpm/php-fpm.pid", "daemonize = no", "listen = /s/fpm/php-fpm.sock",
		"listen.mode = 0666", "pm = static", "pm.max_children = 4", "pm.max_requests = 0", "clear_env = no"} {
		if !strings.Contains(conf, want+"\n") {
			t.Errorf("php-fpm.conf lacks %q:\n%s", want, conf)
		}
	}
	assertPrivate(t, conf, ";")
	assertPrivate(t, nginxConf("/s/nginx", 8080, &NginxSite{Root: "/a/public", Script: "/a/public/index.php", FastCGI: "unix:/s/fpm/php-fpm.sock", Workers: 2}), "#")
}

// TestINIFlags: php.ini settings become -d flags in name order; a preload script run as root gets
// root as its user unless one is given.
func TestINIFlags(t *testing.T) {
	ini := map[string]string{"opcache.validate_timestamps": "0", "memory_limit": "64M"}
	if got, want := strings.Join(iniFlags(ini, true), " "), "-d memory_limit=64M -d opcache.validate_timestamps=0"; got != want {
		t.Errorf("flags %q, want %q", got, want)
	}
	ini["opcache.preload"] = "/a/preload.php"
	for _, tc := range []struct {
		root bool
		user string
		want string
	}{
		{true, "", "-d opcache.preload=/a/preload.php -d opcache.preload_user=root -d opcache.validate_timestamps=0"},
		{false, "", "-d opcache.preload=/a/preload.php -d opcache.validate_timestamps=0"},
		{true, "www-data", "-d opcache.preload=/a/preload.php -d opcache.preload_user=www-data -d opcache.validate_timestamps=0"},
	} {
		in := maps.Clone(ini)
		if tc.user != "" {
			in["opcache.preload_user"] = tc.user
		}
		got := strings.Join(iniFlags(in, tc.root), " ")
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("root %v, user %q: flags %q, want ... %q", tc.root, tc.user, got, tc.want)
		}
		if _, added := in["opcache.preload_user"]; added != (tc.user != "") {
			t.Errorf("iniFlags changed its argument: %v", in)
		}
	}
	if iniFlags(nil, true) != nil {
		t.Error("no settings, yet flags")
	}
}

// assertPrivate fails when a configuration (comments starting with comment left out) includes
// other files or names a system directory.
func assertPrivate(t *testing.T, conf, comment string) {
	t.Helper()
	for _, line := range strings.Split(conf, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, comment) {
			continue
		}
		for _, bad := range []string{"include", "/etc/", "/var/", "/run/"} {
			if strings.Contains(line, bad) {
				t.Errorf("configuration line %q names %s; want everything private", line, bad)
			}
		}
	}
}

// TestStartNginxNeedsSite: nginx is not a shared service, so Start without a site says what to
// use; a site nginx could not pass requests to is refused before it starts.
func TestStartNginxNeedsSite(t *testing.T) {
	_, err := Start(context.Background(), "nginx", testOptions(t))
	if err == nil || !strings.Contains(err.Error(), "StartNginx") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Start(nginx) = %v; want one line naming StartNginx", err)
	}
	if _, err := StartNginx(context.Background(), NginxSite{Port: 1, Root: "public"}, testOptions(t)); err == nil {
		t.Error("StartNginx with a relative root succeeded")
	}
	if !isRoot() {
		return // nginx runs as we do: it can reach any socket we made
	}
	opts := testOptions(t)
	closed := filepath.Join(opts.StateDir, "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	port, _ := freePort()
	releasePort(port)
	site := NginxSite{Port: port, Root: "/x", Script: "/x/index.php", FastCGI: "unix:" + closed + "/php-fpm.sock"}
	if inst, err := StartNginx(context.Background(), site, opts); err == nil || !strings.Contains(err.Error(), "www-data cannot enter "+closed) {
		inst.Stop(context.Background())
		t.Errorf("StartNginx with a socket www-data cannot reach = %v; want it named", err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
