package impl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
)

// node is the Node toolchain: npm ci from the committed package-lock.json (install.npm) into a
// folder owned by iobench, with the node and npm the machine has; NODE_PATH points the impl at
// the installed modules.
type node struct{}

// nodeHint says what to install when node or npm is missing. iobench never installs Node itself:
// the distribution's npm package drags in hundreds of others, and impls pin their own versions.
const nodeHint = "install Node.js 18 or later with its npm (e.g. from nodejs.org) and put node and npm on PATH"

// install copies package.json and the lock file into StateDir/.../node and runs npm ci there,
// unless a stamp says the same files were installed with the same npm.
func (node) install(ctx context.Context, inst *Installation, log *slog.Logger) error {
	m := inst.Manifest
	if m.Install.NPM == "" {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return missingRuntime(m, "command", "npm", nodeHint)
	}
	src := filepath.Dir(filepath.Join(m.Dir, m.Install.NPM))
	lock, err1 := os.ReadFile(filepath.Join(src, "package-lock.json"))
	pkg, err2 := os.ReadFile(filepath.Join(src, "package.json"))
	if err := errors.Join(err1, err2); err != nil {
		return installErr("impl %s: %v", m.Name, unwrapPath(err))
	}
	npmVersion, _ := output(ctx, npm, "--version")
	dst := filepath.Join(inst.Dir, "node")
	inst.NodePath = filepath.Join(dst, "node_modules")
	stamp := stampFile{path: filepath.Join(dst, ".iobench-installed"), sum: digest(lock, pkg, []byte(npmVersion))}
	if stamp.fresh() {
		return nil
	}
	inst.Reused = false
	log.Info("installing impl", "impl", m.Name, "dir", dst)
	if err := npmCI(ctx, inst, npm, dst, map[string][]byte{"package.json": pkg, "package-lock.json": lock}); err != nil {
		return err
	}
	return stamp.write(m.Name)
}

// npmCI writes files into a fresh dst and runs npm ci there; a failure leaves nothing behind.
func npmCI(ctx context.Context, inst *Installation, npm, dst string, files map[string][]byte) error {
	m := inst.Manifest
	if err := os.RemoveAll(dst); err != nil {
		return installErr("impl %s: cannot remove %s: %v", m.Name, dst, unwrapPath(err))
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return installErr("impl %s: cannot create %s: %v", m.Name, dst, unwrapPath(err))
	}
	for name, b := range files {
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
	return nil
}

// check looks for node and resolves every package of requires.node from the installed modules.
func (node) check(ctx context.Context, inst *Installation, miss missFunc) {
	m := inst.Manifest
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		miss("command", "node", nodeHint)
		return
	}
	for _, r := range m.Requires.Node {
		cmd := exec.CommandContext(ctx, nodeBin, "-e", fmt.Sprintf("require.resolve(%q)", r.Name))
		cmd.Env = append(os.Environ(), "NODE_PATH="+inst.NodePath)
		if cmd.Run() != nil {
			miss("Node package", r.Name, or(r.Hint, "add "+r.Name+" to package.json, run npm install once and commit package-lock.json"))
		}
	}
}
