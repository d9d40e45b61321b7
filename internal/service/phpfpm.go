package service

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// PHP-FPM is not started by this package: its process tree is the cost of the PHP impl it runs,
// so package impl runs it through package sut (measured, stopped with all its workers). This
// package writes its private configuration and says how to run it, as it does for the servers
// it starts itself.

// phpFPMBinaries are the names Debian gives the PHP-FPM executable, newest first.
var phpFPMBinaries = []string{"php-fpm8.2", "php-fpm"}

// PHPFPMBinary returns the PHP-FPM executable (in PATH or /usr/sbin), or a one-line error saying
// which package to install.
func PHPFPMBinary() (string, error) {
	var err error
	for _, b := range phpFPMBinaries {
		var p string
		if p, err = lookBinary("php-fpm", b, "php8.2-fpm", ""); err == nil {
			return p, nil
		}
	}
	return "", err
}

// PHPFPMPool is one PHP-FPM master with one static pool, configured in a private directory.
type PHPFPMPool struct {
	// Dir is the pool's private directory (php-fpm.conf, pid file and socket), created by the
	// caller and removed after the stop. A user nginx runs as must be able to enter it.
	Dir string
	// Workers is pm.max_children of the static pool; 0 means one per core.
	Workers int
	// INI are php.ini settings given on PHP-FPM's command line (-d NAME=VALUE), over the system's
	// php.ini: the impl's tuning, e.g. opcache.validate_timestamps=0 or opcache.preload.
	INI map[string]string
	// Extensions, when not nil, are the only ones PHP-FPM loads of the extensions its scan
	// directory (conf.d) enables, by name, e.g. opcache and curl: as a production image installs
	// only what its app uses, so that no request runs the others' start and end hooks. Each must
	// be enabled there. Nil loads them all.
	Extensions []string
}

// PHPFPMCommand is how to run a PHPFPMPool: its command line and what it will listen on.
type PHPFPMCommand struct {
	Argv    []string       // php-fpm in the foreground with the pool's php-fpm.conf
	Env     []string       // NAME=VALUE to add to its environment: PHP_INI_SCAN_DIR for Extensions
	Listen  string         // the pool's address for nginx's fastcgi_pass: unix:/path or 127.0.0.1:PORT
	Workers int            // the pool's worker processes
	Version string         // PHP's version, e.g. "8.2.36"
	Ready   *regexp.Regexp // the line PHP-FPM logs once it accepts requests
}

// phpFPMReady is PHP-FPM's notice once its pool listens and its workers are forked.
var phpFPMReady = regexp.MustCompile(`NOTICE: ready to handle connections`)

// Prepare writes the pool's php-fpm.conf into Dir and returns how to run it. The configuration
// is the whole of PHP-FPM's (nothing of /etc/php/*/fpm/php-fpm.conf or pool.d; php.ini and the
// extensions' conf.d are PHP's own, as for the CLI, with INI over them): in the foreground, logging to stderr, pm =
// static with Workers children that never recycle, the environment passed to the workers
// (clear_env = no: the IOBENCH_* variables), their output caught into the log. It listens on a
// unix socket in Dir (mode 0666, so that nginx running as another user can connect), or on a
// free port of 127.0.0.1 when Dir's path is too long for a socket. As root, the workers run as
// root too (-R), like every other impl iobench starts.
func (pool PHPFPMPool) Prepare(ctx context.Context) (*PHPFPMCommand, error) {
	bin, err := PHPFPMBinary()
	if err != nil {
		return nil, err
	}
	workers := pool.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	listen, addr := filepath.Join(pool.Dir, "php-fpm.sock"), ""
	if len(listen) > maxSocketPath {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("php-fpm: %w", err)
		}
		releasePort(port) // PHP-FPM binds it moments later; a lost race fails its start with a clear log line
		listen = fmt.Sprintf("127.0.0.1:%d", port)
		addr = listen
	} else {
		addr = "unix:" + listen
	}
	conf := filepath.Join(pool.Dir, "php-fpm.conf")
	if err := os.WriteFile(conf, []byte(phpFPMConf(pool.Dir, listen, workers)), 0o644); err != nil {
		return nil, fmt.Errorf("php-fpm: writing its configuration: %w", unwrapPath(err))
	}
	argv := []string{bin, "--nodaemonize", "--force-stderr", "--fpm-config", conf}
	argv = append(argv, iniFlags(pool.INI, isRoot())...)
	if isRoot() {
		argv = append(argv, "--allow-to-run-as-root")
	}
	info, _ := exec.CommandContext(ctx, bin, "-i").Output() // its version, and its scan directory for Extensions
	var env []string
	if pool.Extensions != nil {
		scan, err := onlyExtensions(ctx, bin, infoField(info, "Scan this dir for additional .ini files"), filepath.Join(pool.Dir, "conf.d"), pool.Extensions)
		if err != nil {
			return nil, fmt.Errorf("php-fpm: %w", err)
		}
		env = []string{"PHP_INI_SCAN_DIR=" + scan}
	}
	return &PHPFPMCommand{Argv: argv, Env: env, Listen: addr, Workers: workers, Version: infoField(info, "PHP Version"), Ready: phpFPMReady}, nil
}

// infoField returns the value of a "NAME => VALUE" line of `php-fpm -i`'s output, or "".
func infoField(info []byte, name string) string {
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, name+" => "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// onlyExtensions makes dir a scan directory that enables only the named extensions of sys, PHP's
// own scan directory: links to the .ini files of sys that load them (their names, so their order,
// kept). It returns dir, or a one-line error naming an extension sys does not enable or PHP-FPM
// then does not load (one that needs another first, e.g. redis igbinary).
func onlyExtensions(ctx context.Context, bin, sys, dir string, names []string) (string, error) {
	if sys == "" || sys == "(none)" {
		return "", fmt.Errorf("%s -i names no scan directory for extensions' .ini files; drop the pool's extensions list to load them all", bin)
	}
	enables, err := extensionINIs(sys)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", unwrapPath(err)
	}
	for _, name := range names {
		file, ok := enables[name]
		if !ok {
			return "", fmt.Errorf("extension %q is not enabled in %s; install it (e.g. apt-get install php8.2-%s) or drop it from the pool's extensions", name, sys, name)
		}
		if err := os.Symlink(filepath.Join(sys, file), filepath.Join(dir, file)); err != nil && !os.IsExist(err) {
			return "", unwrapPath(err)
		}
	}
	return dir, checkLoaded(ctx, bin, dir, names)
}

// checkLoaded runs `php-fpm -m` on scan directory dir and returns an error naming the extensions
// of names it does not list.
func checkLoaded(ctx context.Context, bin, dir string, names []string) error {
	cmd := exec.CommandContext(ctx, bin, "-m")
	cmd.Env = append(os.Environ(), "PHP_INI_SCAN_DIR="+dir)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s -m with the pool's extensions: %v", bin, err)
	}
	loaded := map[string]bool{}
	for line := range strings.Lines(strings.ToLower(string(out))) {
		loaded[strings.TrimPrefix(strings.TrimSpace(line), "zend ")] = true // opcache is "Zend OPcache"
	}
	var missing []string
	for _, n := range names {
		if !loaded[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("PHP-FPM does not load %s from the pool's extensions; list first what they need (e.g. igbinary for redis, pdo for pdo_pgsql)", strings.Join(missing, ", "))
	}
	return nil
}

// extensionLine is an .ini line that loads an extension: extension=curl.so, zend_extension=opcache.
var extensionLine = regexp.MustCompile(`(?m)^\s*(?:zend_)?extension\s*=\s*"?([^"\s;]+?)(?:\.so)?"?\s*(?:;.*)?$`)

// extensionINIs returns, for each extension the .ini files of dir load, the file's name.
func extensionINIs(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.ini"))
	if err != nil {
		return nil, err
	}
	enables := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, unwrapPath(err)
		}
		for _, m := range extensionLine.FindAllSubmatch(b, -1) {
			enables[filepath.Base(string(m[1]))] = filepath.Base(f)
		}
	}
	return enables, nil
}

// iniFlags returns PHP-FPM's -d flags for ini, sorted by name. A preload script needs a user to
// run as when PHP-FPM runs as root: opcache.preload_user=root then, unless ini names one.
func iniFlags(ini map[string]string, root bool) []string {
	if _, ok := ini["opcache.preload_user"]; root && ini["opcache.preload"] != "" && !ok {
		ini = maps.Clone(ini)
		ini["opcache.preload_user"] = "root"
	}
	var flags []string
	for _, k := range slices.Sorted(maps.Keys(ini)) {
		flags = append(flags, "-d", k+"="+ini[k])
	}
	return flags
}

// phpFPMConf is the whole php-fpm.conf of a private pool named app.
func phpFPMConf(dir, listen string, workers int) string {
	return fmt.Sprintf(`; written by iobench for one run; nothing of /etc/php/*/fpm/php-fpm.conf or pool.d is read
[global]
pid = %[1]s/php-fpm.pid
error_log = /proc/self/fd/2
log_level = notice
daemonize = no
systemd_interval = 0

[app]
listen = %[2]s
listen.mode = 0666
listen.backlog = 4096
pm = static
pm.max_children = %[3]d
pm.max_requests = 0
clear_env = no
catch_workers_output = yes
decorate_workers_output = no
`, dir, listen, workers)
}
