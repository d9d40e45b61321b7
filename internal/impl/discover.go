package impl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/suggest"
)

// RootFlagHelp is the help of every --impls-dir flag: where DefaultRoot looks.
const RootFlagHelp = "the impls folder (default $IOBENCH_IMPLS_DIR, else ./impls, else the impls/ beside the bin/ folder that holds iobench, else the impls built into iobench, unpacked into the user's cache)"

// DefaultRoot returns the impls folder: $IOBENCH_IMPLS_DIR, else ./impls when it exists, else the
// impls folder beside the iobench binary's parent (bin/iobench -> ./impls), else the impls
// embedded in the binary, unpacked into the user's cache directory (Unpack), so that iobench runs
// from any directory; "impls" when even that fails.
func DefaultRoot() string {
	if d := os.Getenv(env.ImplsDir); d != "" {
		return d
	}
	if st, err := os.Stat("impls"); err == nil && st.IsDir() {
		return "impls"
	}
	if exe, err := os.Executable(); err == nil {
		d := filepath.Join(filepath.Dir(filepath.Dir(exe)), "impls")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	if d, err := Unpack(); err == nil {
		return d
	}
	return "impls"
}

// Entry is one impl folder found by List: its manifest, or why it cannot be used.
type Entry struct {
	Dir      string
	Manifest *Manifest // nil when Err is set
	Err      error
}

// List finds every impls/<language>/<name>/impl.yaml under root and loads it. Broken manifests
// are listed with their error, as is a manifest whose language is not its folder's.
func List(root string) ([]Entry, error) {
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("impls folder %s not found; run from the iobench checkout or pass --impls-dir", root)
	}
	paths, err := filepath.Glob(filepath.Join(root, "*", "*", ManifestFile))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Entry
	for _, p := range paths {
		dir := filepath.Dir(p)
		m, err := Load(dir)
		e := Entry{Dir: dir, Manifest: m, Err: err}
		if lang := filepath.Base(filepath.Dir(dir)); m != nil && lang != m.Language {
			e.Manifest, e.Err = nil, &ManifestError{Path: p, Problems: []Problem{{Field: "language", Msg: fmt.Sprintf("%q in a folder for %s", m.Language, lang), Hint: "move the impl to impls/" + m.Language + "/ or fix language"}}}
		}
		out = append(out, e)
	}
	return out, nil
}

// RefSeparator separates an impl's name from a variant in a reference: "go-bus:sync".
const RefSeparator = ":"

// ParseRef splits a reference "NAME" or "NAME:VARIANT" into the impl's name and the variant
// ("" for the impl's default).
func ParseRef(ref string) (name, variant string) {
	name, variant, _ = strings.Cut(ref, RefSeparator)
	return name, variant
}

// WorkloadRefs returns, for every workload that some listed impl declares, the references a
// scenario may name: each such impl's name, and NAME:VARIANT for each of its variants.
func WorkloadRefs(entries []Entry) map[string][]string {
	out := map[string][]string{}
	for _, e := range entries {
		if e.Manifest == nil {
			continue
		}
		for _, w := range e.Manifest.WorkloadNames() {
			out[w] = append(out[w], e.Manifest.Name)
			for _, v := range e.Manifest.Variants {
				out[w] = append(out[w], e.Manifest.Name+RefSeparator+v.Name)
			}
		}
	}
	return out
}

// ErrNotFound is returned (wrapped) by Find for a name no impl has.
var ErrNotFound = errors.New("impl not found")

// Find returns the impl called name under root, or loads the folder name when it is a path to
// one (contains a '/'). A broken manifest is returned as its *ManifestError.
func Find(root, name string) (*Manifest, error) {
	if strings.Contains(name, "/") {
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			return Load(name)
		}
	}
	entries, err := List(root)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, e := range entries {
		if e.Manifest != nil {
			if e.Manifest.Name == name {
				return e.Manifest, nil
			}
			known = append(known, e.Manifest.Name)
			continue
		}
		if filepath.Base(e.Dir) == name {
			return nil, e.Err
		}
	}
	hint := "no impls found under " + root
	if len(known) > 0 {
		hint = strings.TrimPrefix(suggest.Hint(name, known)+" known: "+strings.Join(known, ", "), " ")
	}
	return nil, fmt.Errorf("%w: %q; %s (see iobench impls)", ErrNotFound, name, hint)
}
