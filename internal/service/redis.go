package service

import (
	"context"
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

func init() {
	register(&spec{
		name: "redis", env: env.RedisURL, flag: "--redis-url", schemes: []string{"redis"}, example: "redis://127.0.0.1:6379",
		installed: func() error { _, err := lookBinary("redis", "redis-server", "redis-server", "--redis-url"); return err },
		launch:    launchRedis,
		probe:     probeRedis,
		ready:     20 * time.Second,
	})
	register(&spec{
		name: "memcached", env: env.MemcachedAddr, flag: "--memcached-addr", schemes: []string{"memcached"}, example: "127.0.0.1:11211",
		installed: func() error {
			_, err := lookBinary("memcached", "memcached", "memcached", "--memcached-addr")
			return err
		},
		launch: launchMemcached,
		probe:  probeMemcached,
		ready:  20 * time.Second,
	})
}

// sbinDirs are where Debian puts daemons (nginx, php-fpm8.2), often not on a user's PATH.
var sbinDirs = []string{"/usr/local/sbin", "/usr/sbin", "/sbin"}

// lookBinary finds a server binary in PATH, else in sbinDirs, or says how to install it.
func lookBinary(service, binary, pkg, flag string) (string, error) {
	if p, err := exec.LookPath(binary); err == nil {
		return p, nil
	}
	for _, d := range sbinDirs {
		if p := filepath.Join(d, binary); executable(p) {
			return p, nil
		}
	}
	return "", notInstalled(service, binary, pkg, flag)
}

// launchRedis runs redis-server in the foreground as our child: loopback only, no RDB snapshots,
// no append-only file, its working directory in the instance directory.
func launchRedis(_ context.Context, l *launch) (string, error) {
	bin, err := lookBinary("redis", "redis-server", "redis-server", "--redis-url")
	if err != nil {
		return "", err
	}
	l.logFile = l.dir + "/redis.log"
	if err := l.runOne(procConfig{
		path: bin,
		args: []string{
			"--bind", "127.0.0.1", "--port", strconv.Itoa(l.port), "--protected-mode", "yes",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--supervised", "no",
			"--dir", l.dir, "--logfile", "",
		},
		env: baseEnv(l.dir), log: "redis.log", signal: syscall.SIGTERM, grace: 10 * time.Second,
	}); err != nil {
		return "", err
	}
	return fmt.Sprintf("redis://127.0.0.1:%d", l.port), nil
}

// launchMemcached runs memcached in the foreground as our child: TCP on loopback only, UDP off.
func launchMemcached(_ context.Context, l *launch) (string, error) {
	bin, err := lookBinary("memcached", "memcached", "memcached", "--memcached-addr")
	if err != nil {
		return "", err
	}
	args := []string{"-l", "127.0.0.1", "-p", strconv.Itoa(l.port), "-U", "0"}
	if l.user == nil && isRoot() {
		args = append(args, "-u", "root") // no user memcache: memcached refuses root without -u
	}
	l.logFile = l.dir + "/memcached.log"
	if err := l.runOne(procConfig{
		path: bin, args: args, env: baseEnv(l.dir), log: "memcached.log",
		// memcached keeps nothing worth a clean exit, and SIGTERM takes it up to a second (its
		// event loop checks the flag on its clock tick).
		signal: syscall.SIGKILL, grace: 5 * time.Second,
	}); err != nil {
		return "", err
	}
	return fmt.Sprintf("memcached://127.0.0.1:%d", l.port), nil
}
