package impl

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrMissing is matched (errors.Is) by Check's error when a prerequisite is missing.
var ErrMissing = errors.New("impl prerequisite missing")

// Missing is one missing prerequisite: what kind it is, its name and what to install.
type Missing struct {
	Kind string // command, Python module, Node package, PHP extension, PHP library, iobench executable
	Name string
	Hint string
}

// MissingError lists every missing prerequisite of one impl, each with its hint. Its message is
// one line.
type MissingError struct {
	Impl    string
	Missing []Missing
}

// Error returns "impl NAME: missing command x (hint); Python module y (hint)".
func (e *MissingError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, r := range e.Missing {
		parts[i] = fmt.Sprintf("%s %s (%s)", r.Kind, r.Name, r.Hint)
	}
	return fmt.Sprintf("impl %s: missing %s", e.Impl, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrMissing) true.
func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// missingRuntime is Install's error when the language's own runtime (python3, npm, the venv
// module) is not on this machine: a MissingError, so a suite can skip the impl, not fail it.
func missingRuntime(m *Manifest, kind, name, hint string) error {
	return &MissingError{Impl: m.Name, Missing: []Missing{{Kind: kind, Name: name, Hint: hint}}}
}

// Check verifies every prerequisite of the installed impl: the commands of requires.commands on
// PATH, then what its language's toolchain checks (Python modules importable by the virtualenv,
// Node packages resolvable from its node_modules, PHP extensions and libraries, the iobench
// executable). Every missing one is reported, each with what to install.
func (inst *Installation) Check(ctx context.Context) error {
	m := inst.Manifest
	e := &MissingError{Impl: m.Name}
	miss := func(kind, name, hint string) { e.Missing = append(e.Missing, Missing{kind, name, hint}) }
	for _, r := range m.Requires.Commands {
		if _, err := exec.LookPath(r.Name); err != nil {
			miss("command", r.Name, r.Hint)
		}
	}
	if tc, ok := toolchains[m.Language]; ok {
		tc.check(ctx, inst, miss)
	}
	if len(e.Missing) > 0 {
		return e
	}
	return nil
}

// Command returns the argv that starts the impl: start.command with a first word "iobench"
// resolved to the iobench executable and "python" to the virtualenv's interpreter, other bare
// words looked up on PATH, relative paths taken from the impl's folder, and {dir} and {state}
// expanded.
func (inst *Installation) Command() []string { return inst.resolve(inst.Manifest.Start.Command) }

// expand returns s with {dir} and {state} replaced by the impl's folder and state directory.
func (inst *Installation) expand(s string) string {
	return strings.NewReplacer("{dir}", inst.Manifest.Dir, "{state}", inst.Dir).Replace(s)
}

// resolve returns command as Command resolves start.command.
func (inst *Installation) resolve(command []string) []string {
	m := inst.Manifest
	argv := make([]string, len(command))
	for i, a := range command {
		argv[i] = inst.expand(a)
	}
	if len(argv) == 0 {
		return argv
	}
	switch {
	case argv[0] == "iobench" && inst.Executable != "":
		argv[0] = inst.Executable
	case (argv[0] == "python" || argv[0] == "python3") && inst.Python != "":
		argv[0] = inst.Python
	case !strings.Contains(argv[0], "/"):
		if p, err := exec.LookPath(argv[0]); err == nil {
			argv[0] = p
		}
	case !filepath.IsAbs(argv[0]):
		argv[0] = filepath.Join(m.Dir, argv[0])
	}
	return argv
}
