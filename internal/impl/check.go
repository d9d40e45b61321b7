package impl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrMissing is matched (errors.Is) by Check's error when a prerequisite is missing.
var ErrMissing = errors.New("impl prerequisite missing")

// MissingError lists every missing prerequisite of one impl, each with its hint. Its message is
// one line.
type MissingError struct {
	Impl    string
	Missing []Requirement
	Kind    []string // what each one is: command, Python module, Node package, PHP extension
}

// Error returns "impl NAME: missing command x (hint); Python module y (hint)".
func (e *MissingError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, r := range e.Missing {
		parts[i] = fmt.Sprintf("%s %s (%s)", e.Kind[i], r.Name, r.Hint)
	}
	return fmt.Sprintf("impl %s: missing %s", e.Impl, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrMissing) true.
func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// Check verifies every prerequisite the manifest declares, with the installed dependencies in
// place: commands on PATH, Python modules importable by the impl's interpreter, Node packages
// resolvable from its node_modules, PHP extensions loaded by php. Every missing one is reported.
func (inst *Installation) Check(ctx context.Context) error {
	m := inst.Manifest
	e := &MissingError{Impl: m.Name}
	miss := func(kind string, r Requirement) {
		e.Missing = append(e.Missing, r)
		e.Kind = append(e.Kind, kind)
	}
	for _, r := range m.Requires.Commands {
		if _, err := exec.LookPath(r.Name); err != nil {
			miss("command", r)
		}
	}
	if len(m.Requires.Python) > 0 {
		py := inst.Python
		if py == "" {
			py, _ = exec.LookPath("python3")
		}
		for _, r := range m.Requires.Python {
			mod := r.Import
			if mod == "" {
				mod = strings.ReplaceAll(r.Name, "-", "_")
			}
			if py == "" || exec.CommandContext(ctx, py, "-c", "import "+mod).Run() != nil {
				miss("Python module", Requirement{Name: mod, Hint: r.Hint})
			}
		}
	}
	if len(m.Requires.Node) > 0 {
		node, _ := exec.LookPath("node")
		for _, r := range m.Requires.Node {
			cmd := exec.CommandContext(ctx, "node", "-e", fmt.Sprintf("require.resolve(%q)", r.Name))
			cmd.Env = append(os.Environ(), "NODE_PATH="+inst.NodePath)
			if node == "" || cmd.Run() != nil {
				miss("Node package", r)
			}
		}
	}
	if len(m.Requires.PHPExtensions) > 0 {
		loaded := map[string]bool{}
		if out, err := exec.CommandContext(ctx, "php", "-m").Output(); err == nil {
			for _, l := range strings.Split(string(out), "\n") {
				loaded[strings.ToLower(strings.TrimSpace(l))] = true
			}
		}
		for _, r := range m.Requires.PHPExtensions {
			if !loaded[strings.ToLower(r.Name)] {
				miss("PHP extension", r)
			}
		}
	}
	if len(e.Missing) > 0 {
		return e
	}
	return nil
}

// Command returns the argv that starts the impl: start.command with "python" resolved to the
// virtualenv's interpreter, and {dir} and {state} expanded.
func (inst *Installation) Command() []string {
	m := inst.Manifest
	argv := make([]string, len(m.Start.Command))
	for i, a := range m.Start.Command {
		a = strings.ReplaceAll(a, "{dir}", m.Dir)
		a = strings.ReplaceAll(a, "{state}", inst.Dir)
		argv[i] = a
	}
	if len(argv) > 0 && inst.Python != "" && (argv[0] == "python" || argv[0] == "python3") {
		argv[0] = inst.Python
	}
	if len(argv) > 0 && !strings.Contains(argv[0], "/") {
		if p, err := exec.LookPath(argv[0]); err == nil {
			argv[0] = p
		}
	} else if len(argv) > 0 && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(m.Dir, argv[0])
	}
	return argv
}
