package service

import (
	"context"
	"errors"
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func init() {
	register(&spec{
		name: "nats", env: env.NATSURL, flag: "--nats-url", schemes: []string{"nats"}, example: "nats://127.0.0.1:4222",
		launch: launchNATSProcess,
		probe:  probeNATS,
		ready:  20 * time.Second,
	})
}

// natsServer builds an embedded NATS server with JetStream on 127.0.0.1:port, storing in dir.
func natsServer(port int, dir string, quiet bool) (*server.Server, error) {
	ns, err := server.NewServer(&server.Options{
		ServerName: "iobench-" + strconv.Itoa(port),
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      quiet,
	})
	if err != nil {
		return nil, err
	}
	if !quiet {
		ns.ConfigureLogger()
	}
	return ns, nil
}

// startEmbeddedNATS runs NATS inside this process (Kind embedded): no binary needed.
func startEmbeddedNATS(_ context.Context, opts Options) (*Instance, error) {
	begin := time.Now()
	stateDir, err := prepareStateDir(opts.StateDir)
	if err != nil {
		return nil, err
	}
	port := opts.Port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, fmt.Errorf("nats: %w", err)
		}
	} else if err := portFree(port); err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	defer releasePort(port)
	dir := filepath.Join(stateDir, fmt.Sprintf("nats-%d", port))
	if err := makeInstanceDir(dir, nil); err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	ns, err := natsServer(port, filepath.Join(dir, "jetstream"), true)
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats: embedded server did not accept connections on 127.0.0.1:%d within 10s", port)
	}
	inst := &Instance{
		Name: "nats", Kind: KindEmbedded, URL: fmt.Sprintf("nats://127.0.0.1:%d", port),
		Version: server.VERSION, Owned: true, Dir: dir, Startup: time.Since(begin), log: logger(opts.Logger),
		shutdown: func() error {
			ns.Shutdown()
			ns.WaitForShutdown()
			return nil
		},
	}
	inst.log.Info("service ready", "service", "nats", "url", inst.URL, "took", inst.Startup.Round(time.Millisecond))
	return inst, nil
}

// ServeNATS runs an embedded NATS server with JetStream on 127.0.0.1:port, storing its streams
// under dir and logging to stderr, until ctx ends. It backs `iobench services nats-server`, the
// process that Up starts for "nats" so that the server outlives the command.
func ServeNATS(ctx context.Context, port int, dir string) error {
	if err := portFree(port); err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	ns, err := natsServer(port, dir, false)
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return fmt.Errorf("nats: server did not accept connections on 127.0.0.1:%d within 10s", port)
	}
	<-ctx.Done()
	ns.Shutdown()
	ns.WaitForShutdown()
	return nil
}

// launchNATSProcess starts opts.NATSCommand (see ServeNATS) as a local server process.
func launchNATSProcess(_ context.Context, l *launch) (string, error) {
	argv := l.opts.NATSCommand
	if len(argv) == 0 {
		return "", errors.New("no command to run an embedded NATS server in a process of its own (Options.NATSCommand)")
	}
	l.logFile = filepath.Join(l.dir, "nats.log")
	args := append(append([]string(nil), argv[1:]...), "--port", strconv.Itoa(l.port), "--store-dir", filepath.Join(l.dir, "jetstream"))
	if err := l.runOne(procConfig{
		path: argv[0], args: args, env: baseEnv(l.dir), log: "nats.log",
		signal: syscall.SIGTERM, grace: 10 * time.Second,
	}); err != nil {
		return "", err
	}
	return fmt.Sprintf("nats://127.0.0.1:%d", l.port), nil
}
