package impl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/iobench/iobench/internal/cpuset"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/sut"
)

// StartOptions configures Start.
type StartOptions struct {
	// Variant is the manifest variant to run; empty runs the first. The impl gets its name and
	// mode (IOBENCH_VARIANT, IOBENCH_MODE) and its env.
	Variant string
	// Env holds the IOBENCH_* values of this run (Env* constants and workload-specific ones,
	// e.g. IOBENCH_QUEUE); they override the manifest's start.env and the variant's env.
	Env map[string]string
	// OnLine, when set, receives every line the impl writes (stdout and stderr), in order per
	// stream, from reader goroutines; it must be quick.
	OnLine func(line string)
	// LogDir holds the log file; empty means the installation's logs/ folder.
	LogDir string
	// Stream, when set, reads the impl's standard output instead of OnLine and the log: the bus
	// report stream (a bus consumer declared as an impl). The impl is then ready when Stream
	// calls its ready function, whatever the manifest's ready says.
	Stream sut.StreamFunc
	// StateDir holds the record of the impl's process group (see sut.Reap); empty means
	// iobench's state directory.
	StateDir string
	// CPUs, when set, pins the impl (every process it starts) to these CPUs.
	CPUs cpuset.Set
}

// Process is a running impl: PID, LogPath, Tail, Send, Done, Wait, Kill, Mark and Usage are
// those of its sut.Process, the impl's own process tree (for a php_fpm impl, PHP-FPM's). Front
// and FPM are set for a php_fpm impl only.
type Process struct {
	*sut.Process
	// Front is the web server in front of the impl (nginx for php_fpm): a service, whose cost
	// (Front.PIDs()), version and worker count are recorded apart from the impl's.
	Front *service.Instance
	// FPM describes the impl's PHP-FPM pool.
	FPM *FPM

	opts    sut.Options  // what the runner was given: KillAndRestart starts it again
	cleanup func() error // removes what Start made for this process only
}

// Stop stops the front web server, then the impl (stop.signal, then SIGKILL after
// stop.timeout, leaving none of its processes behind), and removes what Start made for it. It is
// safe to call more than once.
func (p *Process) Stop() error {
	var errs []error
	if p.Front != nil {
		errs = append(errs, p.Front.Stop(context.Background()))
	}
	if p.Process != nil {
		errs = append(errs, p.Process.Stop())
	}
	if p.cleanup != nil {
		errs = append(errs, p.cleanup())
	}
	return errors.Join(errs...)
}

// Start runs the installed impl with the §5.2 environment through the one runner (package sut)
// and waits until it is ready (a log line matching ready.log, a TCP connection to
// IOBENCH_LISTEN for ready.tcp: listen, or opts.Stream's signal; for start.php_fpm, PHP-FPM's
// pool and then nginx on IOBENCH_LISTEN). Its output goes to a log file (LogPath) and to
// opts.OnLine; Stop sends stop.signal, then SIGKILL after stop.timeout, and leaves none of its
// processes behind. On failure the error ends with the impl's last lines.
func (inst *Installation) Start(ctx context.Context, opts StartOptions) (*Process, error) {
	m := inst.Manifest
	v, ok := m.Variant(opts.Variant)
	if !ok {
		return nil, m.UnknownVariant(opts.Variant)
	}
	so := inst.sutOptions(m.Name, inst.Command(), v, opts)
	switch {
	case opts.Stream != nil:
		so.Ready.Stream = true
	case m.Ready.Log != "":
		so.Ready.Log = regexp.MustCompile(m.Ready.Log) // validated by Load
	case m.Ready.TCP == "listen":
		if so.Ready.TCP = opts.Env[env.Listen]; so.Ready.TCP == "" {
			return nil, fmt.Errorf("impl %s: ready.tcp is listen but no %s was given", m.Name, env.Listen)
		}
	}
	if m.Start.PHPFPM != nil {
		return inst.startPHPFPM(ctx, so, opts)
	}
	p, err := sut.Start(ctx, so)
	if err != nil {
		return nil, startErr(ctx, err)
	}
	return &Process{Process: p, opts: so}, nil
}

// sutOptions are what the runner is given for argv of variant v: the impl's folder, its
// environment, its log folder, stop.signal and stop.timeout, and ready.timeout.
func (inst *Installation) sutOptions(name string, argv []string, v Variant, opts StartOptions) sut.Options {
	m := inst.Manifest
	logDir := opts.LogDir
	if logDir == "" {
		logDir = filepath.Join(inst.Dir, "logs")
	}
	return sut.Options{
		Name: name, Argv: argv, Dir: m.Dir, Env: inst.environ(v, opts.Env),
		Ready: sut.Ready{Timeout: m.ReadyTimeout()}, Stream: opts.Stream, OnLine: opts.OnLine, LogDir: logDir,
		StopSignal: m.StopSignal(), StopGrace: m.StopTimeout(), StateDir: opts.StateDir, CPUs: opts.CPUs,
	}
}

// StartHelper runs a command of the impl's own beside it (the consumers a manifest declares)
// the way Start runs the impl, through sut: argv resolved as start.command is, in the impl's
// folder, with variant opts.Variant's environment and opts.Env, its output in a log file and to
// opts.OnLine, stopped with stop.signal and stop.timeout. It is ready once it prints a line
// matching ready (within ready.timeout); name names it in errors and in its log.
func (inst *Installation) StartHelper(ctx context.Context, name string, argv []string, ready *regexp.Regexp, opts StartOptions) (*sut.Process, error) {
	v, ok := inst.Manifest.Variant(opts.Variant)
	if !ok {
		return nil, inst.Manifest.UnknownVariant(opts.Variant)
	}
	opts.Stream = nil
	so := inst.sutOptions(name, inst.resolve(argv), v, opts)
	so.Ready.Log = ready
	p, err := sut.Start(ctx, so)
	if err != nil {
		return nil, fmt.Errorf("impl %s: %w", inst.Manifest.Name, err)
	}
	return p, nil
}

// startErr is the error of a start that failed: the runner's, with a hint where the manifest is
// to blame.
func startErr(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return err
	case errors.Is(err, sut.ErrStart):
		return fmt.Errorf("impl %w; check start in %s", err, ManifestFile)
	}
	return fmt.Errorf("impl %w", err)
}

// environ is the impl's environment: ours without IOBENCH_* (sut.Environ) nor a virtualenv or
// Node path of our own, then RuntimeEnv, then the run's env.
func (inst *Installation) environ(v Variant, run map[string]string) []string {
	vars := slices.DeleteFunc(sut.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "VIRTUAL_ENV" || k == "PYTHONHOME" || k == "NODE_PATH"
	})
	for _, kv := range inst.RuntimeEnv(v) {
		vars = sut.SetEnv(vars, kv)
	}
	for k, val := range run {
		vars = sut.SetEnv(vars, k+"="+val)
	}
	return vars
}

// RuntimeEnv returns, as KEY=VALUE, what the installation needs in the environment of variant
// v (virtualenv and PATH, NODE_PATH, unbuffered Python output), then the variant's own
// (VariantEnv), each overriding the one before; for runners that build the rest themselves.
func (inst *Installation) RuntimeEnv(v Variant) []string {
	var vars []string
	set := func(k, v string) { vars = sut.SetEnv(vars, k+"="+v) }
	if inst.Python != "" {
		venv := filepath.Dir(filepath.Dir(inst.Python))
		set("VIRTUAL_ENV", venv)
		set("PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if inst.Manifest.Language == "python" {
		set("PYTHONUNBUFFERED", "1") // lines reach iobench as they are printed
	}
	if inst.NodePath != "" {
		set("NODE_PATH", inst.NodePath)
	}
	variant := inst.VariantEnv(v)
	keys := make([]string, 0, len(variant))
	for k := range variant {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(k, variant[k])
	}
	return vars
}

// VariantEnv returns what the manifest gives variant v to run with: start.env, then the
// variant's name and mode (IOBENCH_VARIANT, IOBENCH_MODE), then its env, each overriding the
// one before.
func (inst *Installation) VariantEnv(v Variant) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{inst.Manifest.Start.Env, {env.Variant: v.Name, env.Mode: v.Mode}, v.Env} {
		for k, val := range m {
			out[k] = val
		}
	}
	return out
}
