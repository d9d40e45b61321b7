package impl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
)

// TestDefaultRootEmbedded: with no impls folder at hand, iobench unpacks the impls built into it
// into the user's cache, once per content, and finds every impl of the checkout there.
func TestDefaultRootEmbedded(t *testing.T) {
	checkout, err := filepath.Abs(filepath.Join("..", "..", "impls"))
	if err != nil {
		t.Fatal(err)
	}
	want := implNames(t, checkout)
	t.Chdir(t.TempDir())
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv(env.ImplsDir, "")
	root := DefaultRoot()
	if !strings.HasPrefix(root, cache) || !strings.HasPrefix(RootName(root), EmbeddedPrefix) {
		t.Fatalf("DefaultRoot = %s (%s), want a folder under %s, embedded", root, RootName(root), cache)
	}
	if got := implNames(t, root); !slices.Equal(got, want) {
		t.Errorf("unpacked impls %v, want the checkout's %v", got, want)
	}
	marker := filepath.Join(root, ".complete")
	before, _ := os.Stat(marker)
	if again := DefaultRoot(); again != root {
		t.Errorf("a second call unpacked again, into %s", again)
	}
	if after, _ := os.Stat(marker); before == nil || after == nil || !after.ModTime().Equal(before.ModTime()) {
		t.Error("a second call rewrote the unpacked impls")
	}
	if RootName(checkout) != checkout {
		t.Errorf("RootName of the checkout's folder = %s, want its path", RootName(checkout))
	}
}

// implNames lists the impls under root that load, by name.
func implNames(t *testing.T, root string) []string {
	t.Helper()
	entries, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Dir, e.Err)
			continue
		}
		out = append(out, e.Manifest.Name)
	}
	slices.Sort(out)
	return out
}
