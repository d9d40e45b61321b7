// Package impltest installs impls from impls/ for the tests of other packages.
package impltest

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/iobench/iobench/internal/impl"
)

// InstallOrSkip installs m into state and checks its prerequisites; it skips the test, saying
// what to install, when one is missing from the machine (make test installs them all through
// scripts/install-services.sh, and iobench never installs Node itself).
func InstallOrSkip(t *testing.T, m *impl.Manifest, state string) *impl.Installation {
	t.Helper()
	if m.Language == "node" {
		for _, cmd := range []string{"node", "npm"} {
			if _, err := exec.LookPath(cmd); err != nil {
				t.Skipf("%s not on PATH: iobench never installs Node; install Node.js 18 or later with npm to run %s", cmd, m.Name)
			}
		}
	}
	inst, err := impl.Install(t.Context(), m, impl.InstallOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(t.Context()); err != nil {
		if errors.Is(err, impl.ErrMissing) {
			t.Skipf("%v; scripts/install-services.sh installs what is missing", err)
		}
		t.Fatal(err)
	}
	return inst
}
