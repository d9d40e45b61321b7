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

// ErrInstall is matched (errors.Is) by the errors of Install: a missing interpreter or a failed
// dependency install.
var ErrInstall = errors.New("impl install failed")

// InstallOptions says where Install puts what it installs.
type InstallOptions struct {
	// StateDir is iobench's state directory; the impl gets StateDir/impls/<language>/<name>.
	// Empty means service.DefaultStateDir().
	StateDir string
	// Logger receives progress; nil is quiet.
	Logger *slog.Logger
}

// Installation is an installed impl: where its dependencies are and how to run it.
type Installation struct {
	Manifest *Manifest
	Dir      string // the impl's state directory (venv, node_modules, logs)
	Python   string // the virtualenv's interpreter, for Python impls with install.venv
	NodePath string // the installed node_modules, for Node impls with install.npm
	Reused   bool   // true when nothing had to be installed
}

// installError is a one-line install failure that matches ErrInstall.
type installError struct{ msg string }

func (e *installError) Error() string        { return e.msg }
func (e *installError) Is(target error) bool { return target == ErrInstall }

func installErr(format string, args ...any) error {
	return &installError{msg: fmt.Sprintf(format, args...)}
}

// Install makes m's own dependencies available in places iobench owns, under the state
// directory: a virtualenv for install.venv, a folder with node_modules for install.npm. It does
// nothing when a stamp says the same files were already installed with the same interpreter.
// Concurrent Installs of one impl (parallel tests) take turns on a lock file.
func Install(ctx context.Context, m *Manifest, opts InstallOptions) (*Installation, error) {
	state := opts.StateDir
	if state == "" {
		state = service.DefaultStateDir()
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
	inst := &Installation{Manifest: m, Dir: dir, Reused: true}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if m.Install.Venv != "" {
		if err := inst.venv(ctx, log); err != nil {
			return nil, err
		}
	}
	if m.Install.NPM != "" {
		if err := inst.npm(ctx, log); err != nil {
			return nil, err
		}
	}
	return inst, nil
}

// venv creates StateDir/.../venv and pip-installs the requirements file into it.
func (inst *Installation) venv(ctx context.Context, log *slog.Logger) error {
	m := inst.Manifest
	py, err := exec.LookPath("python3")
	if err != nil {
		return installErr("impl %s: python3 not found; install Python 3 (apt-get install python3 python3-venv)", m.Name)
	}
	reqPath := filepath.Join(m.Dir, m.Install.Venv)
	req, err := os.ReadFile(reqPath)
	if err != nil {
		return installErr("impl %s: cannot read %s: %v", m.Name, reqPath, unwrapPath(err))
	}
	pyVersion, err := output(ctx, py, "--version")
	if err != nil {
		return installErr("impl %s: %s --version failed: %v; check the Python installation", m.Name, py, err)
	}
	venv := filepath.Join(inst.Dir, "venv")
	inst.Python = filepath.Join(venv, "bin", "python")
	stamp := digest(req, []byte(py), []byte(pyVersion))
	stampFile := filepath.Join(venv, ".iobench-installed")
	if b, err := os.ReadFile(stampFile); err == nil && string(b) == stamp {
		if _, err := os.Stat(inst.Python); err == nil {
			return nil
		}
	}
	inst.Reused = false
	log.Info("installing impl", "impl", m.Name, "venv", venv, "requirements", reqPath)
	if err := os.RemoveAll(venv); err != nil {
		return installErr("impl %s: cannot remove the old virtualenv %s: %v", m.Name, venv, unwrapPath(err))
	}
	logPath := filepath.Join(inst.Dir, "install.log")
	if err := run(ctx, logPath, "", py, "-m", "venv", venv); err != nil {
		return installErr("impl %s: python3 -m venv failed (%v): %s; install the venv module (apt-get install python3-venv) and retry",
			m.Name, err, lastLine(logPath))
	}
	if err := run(ctx, logPath, m.Dir, inst.Python, "-m", "pip", "install", "--disable-pip-version-check",
		"--no-input", "-q", "-r", reqPath); err != nil {
		os.RemoveAll(venv) // never leave a half-installed venv that looks usable
		return installErr("impl %s: pip install -r %s failed (%v): %s; check the pinned versions, that PyPI is reachable, and %s",
			m.Name, m.Install.Venv, err, lastLine(logPath), logPath)
	}
	if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
		return installErr("impl %s: cannot write %s: %v", m.Name, stampFile, unwrapPath(err))
	}
	return nil
}

// npm copies package.json and the lock file into StateDir/.../node and runs npm ci there.
func (inst *Installation) npm(ctx context.Context, log *slog.Logger) error {
	m := inst.Manifest
	npm, err := exec.LookPath("npm")
	if err != nil {
		return installErr("impl %s: npm not found; install Node.js and npm (apt-get install nodejs npm)", m.Name)
	}
	src := filepath.Dir(filepath.Join(m.Dir, m.Install.NPM))
	lock, err1 := os.ReadFile(filepath.Join(src, "package-lock.json"))
	pkg, err2 := os.ReadFile(filepath.Join(src, "package.json"))
	if err := errors.Join(err1, err2); err != nil {
		return installErr("impl %s: %v", m.Name, unwrapPath(err))
	}
	nodeVersion, _ := output(ctx, npm, "--version")
	dst := filepath.Join(inst.Dir, "node")
	inst.NodePath = filepath.Join(dst, "node_modules")
	stamp := digest(lock, pkg, []byte(nodeVersion))
	stampFile := filepath.Join(dst, ".iobench-installed")
	if b, err := os.ReadFile(stampFile); err == nil && string(b) == stamp {
		return nil
	}
	inst.Reused = false
	log.Info("installing impl", "impl", m.Name, "dir", dst)
	if err := os.RemoveAll(dst); err != nil {
		return installErr("impl %s: cannot remove %s: %v", m.Name, dst, unwrapPath(err))
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return installErr("impl %s: cannot create %s: %v", m.Name, dst, unwrapPath(err))
	}
	for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			return installErr("impl %s: %v", m.Name, unwrapPath(err))
		}
	}
	logPath := filepath.Join(inst.Dir, "install.log")
	if err := run(ctx, logPath, dst, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
		os.RemoveAll(dst)
		return installErr("impl %s: npm ci failed (%v): %s; check package-lock.json, that the npm registry is reachable, and %s",
			m.Name, err, lastLine(logPath), logPath)
	}
	return os.WriteFile(stampFile, []byte(stamp), 0o644)
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
