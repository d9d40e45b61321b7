package impl

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// python is the Python toolchain: a virtualenv owned by iobench, under the impl's state
// directory, with the pinned requirements file (install.venv) installed by pip; its interpreter
// replaces "python" in start.command.
type python struct{}

const pythonHint = "apt-get install python3 python3-venv"

// install creates StateDir/.../venv and pip-installs the requirements file into it, unless a
// stamp says the same file was installed with the same interpreter.
func (python) install(ctx context.Context, inst *Installation, log *slog.Logger) error {
	m := inst.Manifest
	if m.Install.Venv == "" {
		return nil
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		return missingRuntime(m, "command", "python3", pythonHint)
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
	stamp := stampFile{path: filepath.Join(venv, ".iobench-installed"), sum: digest(req, []byte(py), []byte(pyVersion))}
	if stamp.fresh() && exists(inst.Python) {
		return nil
	}
	inst.Reused = false
	if exec.CommandContext(ctx, py, "-c", "import ensurepip").Run() != nil {
		return missingRuntime(m, "Python module", "ensurepip (for python3 -m venv)", pythonHint)
	}
	log.Info("installing impl", "impl", m.Name, "venv", venv, "requirements", reqPath)
	if err := createVenv(ctx, inst, py, venv, reqPath); err != nil {
		return err
	}
	return stamp.write(m.Name)
}

// createVenv makes a new virtualenv at venv and installs the requirements into it; a failed
// install leaves no half-made virtualenv behind that would look usable.
func createVenv(ctx context.Context, inst *Installation, py, venv, reqPath string) error {
	m := inst.Manifest
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
		os.RemoveAll(venv)
		return installErr("impl %s: pip install -r %s failed (%v): %s; check the pinned versions, that PyPI is reachable, and %s",
			m.Name, m.Install.Venv, err, lastLine(logPath), logPath)
	}
	return nil
}

// check looks for the interpreter and imports every module of requires.python with it.
func (python) check(ctx context.Context, inst *Installation, miss missFunc) {
	m := inst.Manifest
	py := inst.Python
	if py == "" {
		py, _ = exec.LookPath("python3")
	}
	if py == "" {
		miss("command", "python3", pythonHint)
		return
	}
	for _, r := range m.Requires.Python {
		mod := r.Import
		if mod == "" {
			mod = strings.ReplaceAll(r.Name, "-", "_")
		}
		if exec.CommandContext(ctx, py, "-c", "import "+mod).Run() != nil {
			miss("Python module", mod, or(r.Hint, "pin "+r.Name+" in "+or(m.Install.Venv, "requirements.txt")+"; iobench installs it into the impl's virtualenv"))
		}
	}
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
