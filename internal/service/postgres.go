package service

import (
	"context"
	"errors"
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func init() {
	register(&spec{
		name: "postgres", env: env.DatabaseURL, flag: "--database-url", schemes: []string{"postgres", "postgresql"}, example: "postgres://postgres@127.0.0.1:5432/iobench?sslmode=disable",
		installed:  func() error { _, err := pgBinDir(); return err },
		launch:     launchPostgres,
		probe:      probePostgres,
		localProbe: readyPostgres,
		ready:      60 * time.Second,
	})
}

// pgRoot is where Debian installs the server binaries of each major version; a variable so tests
// can hide it.
var pgRoot = "/usr/lib/postgresql"

// pgBinDir returns the directory holding initdb and postgres: the highest version under pgRoot,
// else the one in PATH.
func pgBinDir() (string, error) {
	best, bestVer := "", -1.0
	vers, _ := os.ReadDir(pgRoot)
	for _, v := range vers {
		n, err := strconv.ParseFloat(v.Name(), 64)
		bin := filepath.Join(pgRoot, v.Name(), "bin")
		if err != nil || !executable(filepath.Join(bin, "initdb")) || !executable(filepath.Join(bin, "postgres")) {
			continue
		}
		if n > bestVer {
			best, bestVer = bin, n
		}
	}
	if best != "" {
		return best, nil
	}
	initdb, err1 := exec.LookPath("initdb")
	_, err2 := exec.LookPath("postgres")
	if err1 == nil && err2 == nil {
		return filepath.Dir(initdb), nil
	}
	return "", notInstalled("postgres", "initdb/postgres (in PATH or "+pgRoot+"/*/bin)", "postgresql", "--database-url")
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// maxSocketPath is the room for a unix socket path (sun_path, 108 bytes with the NUL).
const maxSocketPath = 107

// launchPostgres creates a cluster of its own (trust auth, UTF8, C locale) and runs its
// postmaster as our child, as user postgres when we are root.
func launchPostgres(ctx context.Context, l *launch) (string, error) {
	bin, err := pgBinDir()
	if err != nil {
		return "", err
	}
	data := filepath.Join(l.dir, "data")
	env := append(baseEnv(l.dir), "LANG=C", "LC_ALL=C")

	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil { // a restart keeps the cluster
		if err := initCluster(ctx, l, filepath.Join(bin, "initdb"), data, env); err != nil {
			return "", err
		}
	}

	sockets := l.dir
	if len(sockets)+len("/.s.PGSQL.65535") > maxSocketPath {
		sockets = "" // too long a path for a unix socket: TCP only
		l.log.Info("postgres: state dir path too long for a unix socket; TCP only", "dir", l.dir)
	}
	conf := fmt.Sprintf(`
# --- iobench ---
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
max_connections = 300
shared_buffers = 256MB
logging_collector = off
`, l.port, sockets)
	cf, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return "", err
	}
	_, err = cf.WriteString(conf)
	if cerr := cf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}

	l.run = func() error {
		l.logFile = filepath.Join(l.dir, "postgres.log")
		// SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
		_, err := l.spawn(procConfig{
			path: filepath.Join(bin, "postgres"), args: []string{"-D", data}, env: env,
			log: "postgres.log", signal: syscall.SIGINT, grace: 30 * time.Second,
		})
		return err
	}
	if err := l.run(); err != nil {
		return "", err
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/iobench?sslmode=disable", l.port), nil
}

// readyPostgres waits for the server through its maintenance database, creates database
// iobench and returns the version.
func readyPostgres(ctx context.Context, u string) (string, error) {
	admin := strings.Replace(u, "/iobench?", "/postgres?", 1)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE iobench"); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42P04" { // duplicate_database
			return "", err
		}
	}
	return probePostgres(ctx, u)
}

// initCluster creates a fresh cluster in data, logging to initdb.log.
func initCluster(ctx context.Context, l *launch, initdbPath, data string, env []string) error {
	l.logFile = filepath.Join(l.dir, "initdb.log")
	f, err := os.Create(l.logFile)
	if err != nil {
		return err
	}
	// -N: no fsync of the fresh cluster; the data is throwaway until the server starts, and the
	// server itself keeps fsync on.
	initdb := exec.CommandContext(ctx, initdbPath, "-D", data, "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--auth=trust", "-N")
	initdb.Dir, initdb.Env, initdb.Stdout, initdb.Stderr = l.dir, env, f, f
	initdb.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Credential: l.user.credential()}
	err = initdb.Run()
	f.Close()
	if err != nil {
		return fmt.Errorf("initdb failed: %w", err)
	}
	return nil
}
