package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/iobench/iobench/internal/suggest"
)

// Missing returns nil when arg is a file, else the one line saying it is not, with the name
// nearest it among the shipped scenario files and alias (what `iobench run` takes besides
// files: "seeds") and what the command takes: `scenario quik: no such file; did you mean
// "scenarios/quick.yaml"? give scenario files (...) or seeds`.
func Missing(arg, alias string) error {
	if _, err := os.Stat(arg); !errors.Is(err, fs.ErrNotExist) {
		return nil // a file, or one the loader will report on
	}
	shipped, _ := fs.Glob(Files, "*.yaml")
	known := []string{alias}
	for _, f := range shipped {
		known = append(known, "scenarios/"+f)
	}
	hint := suggest.Hint(arg, known)
	if hint == "" { // "quik" for scenarios/quick.yaml
		stems := make([]string, len(shipped))
		for i, f := range shipped {
			stems[i] = strings.TrimSuffix(f, ".yaml")
		}
		if n, ok := suggest.Closest(strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg)), stems); ok {
			hint = `did you mean "scenarios/` + n + `.yaml"?`
		}
	}
	if hint != "" {
		hint += " "
	}
	return fmt.Errorf("scenario %s: no such file; %sgive scenario files (%s) or %s", arg, hint, strings.Join(known[1:], ", "), alias)
}
