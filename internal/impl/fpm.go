package impl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/sut"
)

// FPM is what a run records of a php_fpm impl's PHP-FPM, beside its cost.
type FPM struct {
	Workers int    // pm.max_children of the static pool
	Version string // PHP's version, e.g. "8.2.36"
	Listen  string // where nginx hands requests: unix:/path or 127.0.0.1:PORT
}

// startPHPFPM starts a php_fpm impl: PHP-FPM with a pool of its own in a new directory under the
// installation, through sut (so it is measured and stopped as the impl), then nginx on
// IOBENCH_LISTEN in front of it. so is what Start would run for a command.
func (inst *Installation) startPHPFPM(ctx context.Context, so sut.Options, opts StartOptions) (_ *Process, err error) {
	m := inst.Manifest
	port, err := loopbackPort(opts.Env[env.Listen])
	if err != nil {
		return nil, fmt.Errorf("impl %s: start.php_fpm: %v", m.Name, err)
	}
	workers, err := poolSize(so.Env)
	if err != nil {
		return nil, fmt.Errorf("impl %s: %v", m.Name, err)
	}
	dir, err := os.MkdirTemp(inst.Dir, "fpm-")
	if err == nil {
		err = os.Chmod(dir, 0o755) // nginx, as www-data, connects to the socket in it
	}
	if err != nil {
		return nil, fmt.Errorf("impl %s: cannot make PHP-FPM's directory in %s (%v); pass --state-dir or set IOBENCH_STATE_DIR to a writable directory", m.Name, inst.Dir, unwrapPath(err))
	}
	p := &Process{cleanup: func() error { return os.RemoveAll(dir) }}
	defer func() {
		if err != nil {
			_ = p.Stop()
		}
	}()
	cmd, err := service.PHPFPMPool{Dir: dir, Workers: workers, INI: inst.phpINI(), Extensions: m.Start.PHPFPM.Extensions}.Prepare(ctx)
	if err != nil {
		return nil, fmt.Errorf("impl %s: %w", m.Name, err)
	}
	p.FPM = &FPM{Workers: cmd.Workers, Version: cmd.Version, Listen: cmd.Listen}
	so.Argv, so.Ready.Log = cmd.Argv, cmd.Ready
	// TMPDIR: the pool's temporary files (PHP's sys_get_temp_dir(), e.g. php-fanout's Monolog
	// file) live in its directory and go with it, rather than pile up in /tmp run after run.
	so.Env = sut.SetEnv(so.Env, env.Concurrency+"="+strconv.Itoa(cmd.Workers))
	so.Env = sut.SetEnv(so.Env, "TMPDIR="+dir)
	for _, kv := range cmd.Env {
		so.Env = sut.SetEnv(so.Env, kv)
	}
	p.opts = so
	if p.Process, err = sut.Start(ctx, so); err != nil {
		p.Process = nil
		return nil, startErr(ctx, err)
	}
	stateDir := opts.StateDir
	if stateDir == "" {
		stateDir = inst.stateDir
	}
	p.Front, err = service.StartNginx(ctx, service.NginxSite{
		Port: port, Root: m.PHPFPMRoot(), Script: m.PHPFPMScript(), FastCGI: cmd.Listen,
	}, service.Options{StateDir: stateDir})
	if err != nil {
		return nil, fmt.Errorf("impl %s: nginx in front of PHP-FPM: %w", m.Name, err)
	}
	return p, nil
}

// phpINI returns start.php_fpm.ini with {dir} and {state} expanded in its values; nil when empty.
func (inst *Installation) phpINI() map[string]string {
	var ini map[string]string
	for k, v := range inst.Manifest.Start.PHPFPM.INI {
		if ini == nil {
			ini = map[string]string{}
		}
		ini[k] = inst.expand(v)
	}
	return ini
}

// Versions returns the versions of what runs a php_fpm impl beside its code, for the record's
// environment: PHP-FPM's and nginx's; nil for other impls.
func (p *Process) Versions() map[string]string {
	if p.FPM == nil {
		return nil
	}
	out := map[string]string{"php-fpm": p.FPM.Version}
	if p.Front != nil {
		out[p.Front.Name] = p.Front.Version
	}
	return out
}

// loopbackPort returns the port of an IOBENCH_LISTEN address on 127.0.0.1, where nginx listens.
func loopbackPort(addr string) (int, error) {
	if addr == "" {
		return 0, fmt.Errorf("nginx listens on %s, but it is not set; give the run's address", env.Listen)
	}
	host, p, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || port <= 0 || port > 65535 {
		return 0, fmt.Errorf("%s=%q is not host:port; give e.g. 127.0.0.1:8080", env.Listen, addr)
	}
	if host != "127.0.0.1" && host != "localhost" {
		return 0, fmt.Errorf("%s=%q: nginx listens on 127.0.0.1 only; give 127.0.0.1:%d", env.Listen, addr, port)
	}
	return port, nil
}

// poolSize returns the IOBENCH_CONCURRENCY of the impl's environment, 0 (one per core) when not
// set.
func poolSize(vars []string) (int, error) {
	for _, kv := range vars {
		if v, ok := strings.CutPrefix(kv, env.Concurrency+"="); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return 0, errors.New(env.Concurrency + "=" + v + " is not a PHP-FPM worker count; give a whole number of at least 1")
			}
			return n, nil
		}
	}
	return 0, nil
}
