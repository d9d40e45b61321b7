package impl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/iobench/iobench/internal/service"
)

// ErrInstall is matched (errors.Is) by the errors of Install when a dependency install failed.
// A runtime that is not on the machine at all (python3, npm) is ErrMissing instead, as Check's
// missing prerequisites are.
var ErrInstall = errors.New("impl install failed")

// InstallOptions says where Install puts what it installs.
type InstallOptions struct {
	// StateDir is iobench's state directory; the impl gets StateDir/impls/<language>/<name>.
	// Empty means service.DefaultStateDir().
	StateDir string
	// Executable is the iobench that a first word "iobench" in start.command runs; empty means
	// the running executable.
	Executable string
	// Logger receives progress; nil is quiet.
	Logger *slog.Logger
}

// Installation is an installed impl: where its dependencies are and how to run it.
type Installation struct {
	Manifest   *Manifest
	Dir        string // the impl's state directory (venv, node_modules, logs)
	Executable string // the iobench executable that "iobench" in start.command means
	Python     string // the virtualenv's interpreter, for Python impls with install.venv
	NodePath   string // the installed node_modules, for Node impls with install.npm
	Reused     bool   // true when nothing had to be installed

	stateDir string // iobench's state directory (InstallOptions.StateDir)
}

// installError is a one-line install failure that matches ErrInstall.
type installError struct{ msg string }

func (e *installError) Error() string        { return e.msg }
func (e *installError) Is(target error) bool { return target == ErrInstall }

func installErr(format string, args ...any) error {
	return &installError{msg: fmt.Sprintf(format, args...)}
}

// toolchain is one language's install-and-check step; each lives in its own file (python.go,
// node.go, php.go, golang.go).
type toolchain interface {
	// install puts the impl's own dependencies where iobench owns them, under inst.Dir, and
	// clears inst.Reused when it had work to do.
	install(ctx context.Context, inst *Installation, log *slog.Logger) error
	// check reports every missing prerequisite of the impl, each with what to install.
	check(ctx context.Context, inst *Installation, miss missFunc)
}

// missFunc records one missing prerequisite: its kind ("PHP extension"), name and install hint.
type missFunc func(kind, name, hint string)

// toolchains are the install-and-check steps by language; every one of Languages has one.
var toolchains = map[string]toolchain{"go": golang{}, "node": node{}, "php": php{}, "python": python{}}

// Install makes m's own dependencies available in places iobench owns, under the state
// directory, with its language's toolchain: a virtualenv for Python (install.venv), a folder
// with node_modules for Node (install.npm), nothing for PHP (Debian packages, checked by Check)
// and Go (the iobench executable). It does nothing when a stamp says the same files were already
// installed with the same interpreter. Concurrent Installs of one impl (parallel tests) take
// turns on a lock file.
func Install(ctx context.Context, m *Manifest, opts InstallOptions) (*Installation, error) {
	state := opts.StateDir
	if state == "" {
		state = service.DefaultStateDir()
	}
	if abs, err := filepath.Abs(state); err == nil {
		state = abs // servers started later (php-fpm) run from other directories
	}
	dir := filepath.Join(state, "impls", m.Language, m.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, installErr("impl %s: cannot create %s (%v); pass --state-dir or set IOBENCH_STATE_DIR to a writable directory", m.Name, dir, unwrapPath(err))
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, installErr("impl %s: cannot lock %s: %v", m.Name, dir, err)
	}
	defer unlock()
	inst := &Installation{Manifest: m, Dir: dir, Executable: opts.Executable, Reused: true, stateDir: state}
	if inst.Executable == "" {
		inst.Executable, _ = os.Executable() // an empty path is reported by Check
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tc, ok := toolchains[m.Language]
	if !ok {
		return nil, installErr("impl %s: no toolchain for language %q; use one of %s", m.Name, m.Language, strings.Join(Languages, ", "))
	}
	if err := tc.install(ctx, inst, log); err != nil {
		return nil, err
	}
	return inst, nil
}

// stampFile records what an install was made from (a digest of its inputs), so that an install
// from the same inputs is skipped.
type stampFile struct{ path, sum string }

// fresh says whether the stamp is there and matches.
func (s stampFile) fresh() bool {
	b, err := os.ReadFile(s.path)
	return err == nil && string(b) == s.sum
}

// write records the stamp after a successful install of impl.
func (s stampFile) write(impl string) error {
	if err := os.WriteFile(s.path, []byte(s.sum), 0o644); err != nil {
		return installErr("impl %s: cannot write %s: %v", impl, s.path, unwrapPath(err))
	}
	return nil
}

// exists says whether path names something on disk.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// run runs a command in dir, appending its output to logPath.
func run(ctx context.Context, logPath, dir, name string, args ...string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "$ %s %s\n", name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "PIP_DISABLE_PIP_VERSION_CHECK=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd.Run()
}

func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// lastLine returns the last non-empty line of a log that looks like an error, for a one-line
// message.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no output)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.Contains(strings.ToLower(l), "error") {
			return oneLine(l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return oneLine(l)
		}
	}
	return "(no output)"
}

func digest(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lockDir takes an exclusive flock on dir/.lock until the returned function is called.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// unwrapPath drops the path from an *os.PathError, which the message already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
