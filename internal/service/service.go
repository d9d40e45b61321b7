package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// Kind says where an Instance comes from.
type Kind string

// The kinds of instance.
const (
	// KindLocal is a server process started by iobench from the binaries installed on this machine.
	KindLocal Kind = "local"
	// KindEmbedded is a server running inside the iobench process itself (NATS).
	KindEmbedded Kind = "embedded"
	// KindExternal is a server the user gave by URL; iobench only probes it.
	KindExternal Kind = "external"
)

// Options configures Start, Ensure, Up and Down.
type Options struct {
	// StateDir holds the state file of `iobench services up` and one directory per started
	// instance (data and logs). Empty means DefaultStateDir().
	StateDir string
	// Logger receives progress and diagnostics; nil is quiet.
	Logger *slog.Logger
	// Port, when not 0, is the main port to serve on (AMQP, SQL, ...) instead of a free one;
	// Start fails with a one-line error when it is taken.
	Port int
	// NATSCommand is the argv of a process that runs an embedded NATS server
	// (`iobench services nats-server`); Up needs it for "nats", because a server that must
	// outlive the calling process cannot run inside it. Up appends --port and --store-dir.
	NATSCommand []string

	site *NginxSite // what nginx serves (StartNginx)
}

// ErrUnknown is returned (wrapped) for a service name that is not one of Names().
var ErrUnknown = errors.New("unknown service")

// Instance is one reachable server: started here (Owned), left running by `iobench services up`,
// embedded in this process, or given by the user.
type Instance struct {
	Name    string        // one of Names()
	Kind    Kind          // local, embedded or external
	URL     string        // full URL with credentials, e.g. amqp://guest:guest@127.0.0.1:P/
	Version string        // server version, e.g. "3.10.8", "15.20"; empty when the server does not say
	Owned   bool          // true when this process started it: Stop stops it
	Dir     string        // the instance's data and log directory; empty for external instances
	Startup time.Duration // how long Start took until the server answered; 0 when not started here
	Workers int           // worker processes of a server started with a fixed number (nginx); else 0

	mu       sync.Mutex   // guards procs, which Restart replaces
	procs    []*proc      // the sessions started for it (local kind)
	launch   *launch      // how it was started, for Restart; nil unless started here or by Up
	stateDir string       // the state directory that records it, when Up started it
	shutdown func() error // stops an embedded server
	stopOnce sync.Once
	stopErr  error
	log      *slog.Logger
}

// PIDs returns the process ids of the server's process trees (procstat.Tree of each process
// iobench started for it), for CPU and memory accounting; nil for embedded and external instances.
func (i *Instance) PIDs() []int {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []int
	for _, p := range i.procs {
		if p.alive() {
			out = append(out, procstat.Tree(p.PID)...)
		}
	}
	return out
}

// RootPIDs returns the process ids iobench started for the server (the roots of its trees), for
// a procstat.Meter each; nil for embedded and external instances.
func (i *Instance) RootPIDs() []int {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []int
	for _, p := range i.procs {
		if p.alive() {
			out = append(out, p.PID)
		}
	}
	return out
}

// Stop stops an owned instance and waits until none of its processes is left, then removes its
// directory; it does nothing for instances not owned. Each server gets its clean-shutdown
// signal and up to its grace period (RabbitMQ and PostgreSQL 30 s, Redis 10 s; Memcached, which
// keeps nothing, is killed at once), shortened by a deadline of ctx but not skipped by a
// cancelled ctx; then whatever is left is killed. It is safe to call more than once.
func (i *Instance) Stop(ctx context.Context) error {
	if i == nil || !i.Owned {
		return nil
	}
	i.stopOnce.Do(func() {
		start := time.Now()
		i.mu.Lock()
		defer i.mu.Unlock()
		i.launch = nil // no Restart after Stop
		if i.shutdown != nil {
			i.stopErr = i.shutdown()
		} else {
			i.stopErr = stopProcs(ctx, i.Name, i.procs)
		}
		if i.stopErr == nil && i.Dir != "" {
			if err := os.RemoveAll(i.Dir); err != nil {
				i.stopErr = fmt.Errorf("%s: stopped, but removing %s: %w", i.Name, i.Dir, err)
			}
		}
		logger(i.log).Info("service stopped", "service", i.Name, "took", time.Since(start).Round(time.Millisecond), "err", i.stopErr)
	})
	return i.stopErr
}

// ErrNotRestartable is returned by Restart for an instance iobench did not start from local
// binaries (this process, or `iobench services up`).
var ErrNotRestartable = errors.New("only a local instance started by iobench (this run or 'iobench services up') can be restarted")

// Restart stops a local instance cleanly (as Stop does, keeping its directory) and starts it
// again on the same port with the same data, returning once it answers: what a "broker
// restart" fault needs. An instance of `iobench services up` is started again detached, and its
// record in the state file names the new processes. What the server keeps across it is the server's business (PostgreSQL
// keeps committed rows, RabbitMQ durable queues and persistent messages; Redis, run without
// persistence, and Memcached keep nothing).
func (i *Instance) Restart(ctx context.Context) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.launch == nil {
		return fmt.Errorf("%s: %w", i.Name, ErrNotRestartable)
	}
	begin := time.Now()
	if err := stopProcs(ctx, i.Name, i.procs); err != nil {
		return err
	}
	l := i.launch
	l.procs = nil
	err := l.relaunch(ctx)
	if err == nil {
		_, err = waitReady(ctx, l, i.URL)
	}
	i.procs = l.procs
	if err == nil && i.stateDir != "" {
		err = updateState(i.stateDir, func(st *state) {
			if r := st.Services[i.Name]; r != nil {
				r.Procs = l.procs
			}
		})
	}
	if err != nil {
		killProcs(l.procs)
		return &StartError{Service: i.Name, Log: l.logFile, Tail: tail(l.logFile, 20), Err: fmt.Errorf("restart: %w", err)}
	}
	logger(i.log).Info("service restarted", "service", i.Name, "took", time.Since(begin).Round(time.Millisecond))
	return nil
}

// Redacted returns the instance's URL with its password replaced by "xxxxx".
func (i *Instance) Redacted() string { return Redact(i.URL) }

// EnvName returns the environment variable through which iobench and the systems under test
// receive the instance (IOBENCH_AMQP_URL, ...).
func (i *Instance) EnvName() string { return specs[i.Name].env }

// EnvValue returns the instance's address in the form its environment variable expects: the URL,
// except for memcached whose IOBENCH_MEMCACHED_ADDR is host:port.
func (i *Instance) EnvValue() string {
	if i.Name == "memcached" {
		return strings.TrimPrefix(i.URL, "memcached://")
	}
	return i.URL
}

// Names returns the services this package knows, in the order `services up` starts them.
func Names() []string { return []string{"rabbitmq", "postgres", "redis", "memcached", "nats"} }

// LocalNames returns the services started from binaries installed on the machine (all but nats).
func LocalNames() []string { return []string{"rabbitmq", "postgres", "redis", "memcached"} }

// EnvName returns the environment variable that points Ensure at an external instance of name
// (IOBENCH_AMQP_URL for rabbitmq, ...), or "" for an unknown name.
func EnvName(name string) string { return specs[name].env }

// Installed reports whether the binaries needed to start name locally are on this machine: nil,
// or a one-line error saying how to install them or which flag to pass instead.
func Installed(name string) error {
	sp, err := lookup(name)
	if err != nil {
		return err
	}
	if sp.installed == nil {
		return nil
	}
	return sp.installed()
}

// Start starts a new private instance of name on free ports of 127.0.0.1 (or opts.Port), with its
// own data directory StateDir/<name>-<port> holding its logs, and returns it once it answers.
// The instance is Owned: the caller must Stop it. On failure nothing is left running, the
// directory is kept and the error includes the last lines of the log.
func Start(ctx context.Context, name string, opts Options) (*Instance, error) {
	return start(ctx, name, opts, false)
}

// Ensure returns a reachable instance of name, trying in order: the URL in its environment
// variable (IOBENCH_AMQP_URL, IOBENCH_DATABASE_URL, IOBENCH_REDIS_URL, IOBENCH_MEMCACHED_ADDR,
// IOBENCH_NATS_URL), which must answer; the instance recorded by `iobench services up` in
// StateDir, if it answers; else a new one from Start (Owned, to be stopped by the caller).
func Ensure(ctx context.Context, name string, opts Options) (*Instance, error) {
	sp, err := lookup(name)
	if err != nil {
		return nil, err
	}
	if v := os.Getenv(sp.env); v != "" {
		return external(ctx, sp, v)
	}
	if inst, err := recorded(ctx, name, opts); err == nil && inst != nil {
		return inst, nil
	} else if err != nil {
		logger(opts.Logger).Warn("recorded instance not usable; starting a private one", "service", name, "err", err)
	}
	return Start(ctx, name, opts)
}

// StartError is the error of a local server that did not come up. Its message is one line and
// ends with the last lines of the server's log as a hint.
type StartError struct {
	Service string   // service name
	Log     string   // path of the log file, kept for inspection
	Tail    []string // the log's last lines (at most 20)
	Err     error    // what went wrong
}

// Error returns the one-line message: service, cause, log path and the log's last lines.
func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v", e.Service, e.Err)
	if e.Log != "" {
		fmt.Fprintf(&b, "; log %s", e.Log)
	}
	if len(e.Tail) > 0 {
		b.WriteString("; last lines: ")
		b.WriteString(strings.Join(e.Tail, " | "))
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// spec describes one service: how to find, start and probe it.
type spec struct {
	name      string
	env       string // environment variable of an external instance
	flag      string // the CLI flag that gives one, for hints
	schemes   []string
	example   string // what a valid environment value looks like
	installed func() error
	// launch starts the server's processes in dir for the given port and returns the URL to
	// probe; it fills l.procs as it goes so a failure can be cleaned up.
	launch func(ctx context.Context, l *launch) (string, error)
	probe  func(ctx context.Context, url string) (version string, err error)
	// localProbe, when set, replaces probe while waiting for a server we started (postgres
	// creates its database then).
	localProbe func(ctx context.Context, url string) (version string, err error)
	ready      time.Duration // how long the server may take to answer
}

var specs = map[string]*spec{}

func register(s *spec) { specs[s.name] = s }

func lookup(name string) (*spec, error) {
	sp, ok := specs[name]
	if !ok {
		return nil, fmt.Errorf("%w %q; choose from %s", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return sp, nil
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// launch is what a spec's launch function works with.
type launch struct {
	sp       *spec
	dir      string // instance directory, created and owned by the service user
	port     int    // main port
	detached bool   // survive this process (services up): no parent-death signal
	user     *account
	procs    []*proc
	logFile  string       // the log to show on failure
	reserved []int        // extra ports reserved until the server has bound them
	workers  int          // worker processes the server was configured with, 0 when not fixed
	run      func() error // starts the server's processes into procs (again, for Restart)
	log      *slog.Logger
	opts     Options
}

// relaunch starts the server's processes again: as they were started, or, for an instance
// recorded by Up in another process, by its spec in its directory and on its port.
func (l *launch) relaunch(ctx context.Context) error {
	if l.run != nil {
		return l.run()
	}
	acct, err := serviceAccount(l.sp.name)
	if err != nil {
		return err
	}
	l.user = acct
	defer func() { releasePorts(l.reserved...) }()
	_, err = l.sp.launch(ctx, l)
	return err
}

// start is Start, and Up when detached.
func start(ctx context.Context, name string, opts Options, detached bool) (*Instance, error) {
	sp, err := lookup(name)
	if err != nil {
		return nil, err
	}
	if name == "nats" && !detached {
		return startEmbeddedNATS(ctx, opts)
	}
	if err := Installed(name); err != nil {
		return nil, err
	}
	stateDir, err := prepareStateDir(opts.StateDir)
	if err != nil {
		return nil, err
	}
	// A free port can be taken by someone else between our check and the server's bind; try
	// again with new ports when the log says so.
	const attempts = 3
	for n := 1; ; n++ {
		inst, err := startOnce(ctx, sp, stateDir, opts, detached)
		var se *StartError
		if err == nil || opts.Port != 0 || n == attempts || !errors.As(err, &se) || !portRace(se.Tail) {
			return inst, err
		}
		logger(opts.Logger).Info("port taken while starting; retrying", "service", name, "err", err)
	}
}

func startOnce(ctx context.Context, sp *spec, stateDir string, opts Options, detached bool) (*Instance, error) {
	log := logger(opts.Logger)
	begin := time.Now()
	port := opts.Port
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sp.name, err)
		}
		port = p
	} else if err := portFree(port); err != nil {
		return nil, fmt.Errorf("%s: %w", sp.name, err)
	}
	defer releasePort(port)
	acct, err := serviceAccount(sp.name)
	if err != nil {
		return nil, err
	}
	if err := searchable(stateDir, acct); err != nil {
		return nil, fmt.Errorf("%s: %w", sp.name, err)
	}
	dir := filepath.Join(stateDir, fmt.Sprintf("%s-%d", sp.name, port))
	if err := makeInstanceDir(dir, acct); err != nil {
		return nil, fmt.Errorf("%s: %w", sp.name, err)
	}
	l := &launch{sp: sp, dir: dir, port: port, detached: detached, user: acct, log: log, opts: opts}
	log.Info("starting service", "service", sp.name, "dir", dir, "port", port)
	defer func() { releasePorts(l.reserved...) }()
	url, err := sp.launch(ctx, l)
	var version string
	if err == nil {
		version, err = waitReady(ctx, l, url)
	}
	if err != nil {
		killProcs(l.procs)
		if ctx.Err() != nil { // interrupted by the caller: nothing to inspect
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%s: %w", sp.name, err)
		}
		return nil, &StartError{Service: sp.name, Log: l.logFile, Tail: tail(l.logFile, 20), Err: err}
	}
	inst := &Instance{
		Name: sp.name, Kind: KindLocal, URL: url, Version: version, Owned: true,
		Dir: dir, Startup: time.Since(begin), Workers: l.workers, procs: l.procs, launch: l, log: log,
	}
	log.Info("service ready", "service", sp.name, "url", inst.Redacted(), "version", version, "took", inst.Startup.Round(time.Millisecond))
	return inst, nil
}

// waitReady polls the server until it answers, its process exits, or the time is up.
func waitReady(ctx context.Context, l *launch, url string) (string, error) {
	deadline := time.Now().Add(l.sp.ready)
	for {
		for _, p := range l.procs {
			if p.exited() {
				return "", fmt.Errorf("%s exited before it was ready (%v)", p.Cmd, p.exitErr())
			}
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		probe := l.sp.probe
		if l.sp.localProbe != nil {
			probe = l.sp.localProbe
		}
		v, err := probe(pctx, url)
		cancel()
		if err == nil {
			return v, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("not ready after %v: %v", l.sp.ready, err)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("interrupted while waiting for it to answer: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// portRace says whether a failed start's log blames a port someone else took.
func portRace(lines []string) bool {
	for _, s := range lines {
		s = strings.ToLower(s)
		if strings.Contains(s, "address already in use") || strings.Contains(s, "eaddrinuse") {
			return true
		}
	}
	return false
}
