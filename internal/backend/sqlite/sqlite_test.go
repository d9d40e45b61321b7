package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/backend/conformance"
	"github.com/iobench/iobench/internal/backend/sqlite"
)

func open(t *testing.T, rawURL string) *sqlite.DB {
	t.Helper()
	return conformance.Open(t, func(ctx context.Context) (*sqlite.DB, error) { return sqlite.Open(ctx, rawURL) })
}

func TestConformance(t *testing.T) {
	conformance.SQL(t, func(t *testing.T) backend.SQL {
		return open(t, "sqlite://"+filepath.Join(t.TempDir(), "conf.db"))
	})
}

func TestConformanceMemory(t *testing.T) {
	conformance.SQL(t, func(t *testing.T) backend.SQL { return open(t, "sqlite::memory:") })
}

func TestWAL(t *testing.T) {
	db := open(t, "sqlite://"+filepath.Join(t.TempDir(), "wal.db"))
	defer db.Close()
	if _, err := db.Exec(t.Context(), "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	// journal_mode is persistent in the file; the reader sees what the writer set.
	n, err := db.QueryInt(t.Context(), "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'")
	if err != nil || n != 1 {
		t.Fatalf("journal_mode wal: %d, %v", n, err)
	}
	if _, err := db.QueryInt(t.Context(), "INSERT INTO t VALUES (1) RETURNING x"); err == nil {
		t.Fatal("QueryInt wrote through a read-only connection")
	}
}

func TestOpenMissingDirectory(t *testing.T) {
	_, err := sqlite.Open(t.Context(), "sqlite://"+filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"))
	if err == nil || !strings.Contains(err.Error(), "create its directory") {
		t.Fatalf("error = %v, want a hint to create the directory", err)
	}
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		in, path, params string
		bad              bool
	}{
		{in: "sqlite://relative/path.db", path: "relative/path.db"},
		{in: "sqlite:///abs/path.db", path: "/abs/path.db"},
		{in: "sqlite:relative.db", path: "relative.db"},
		{in: "sqlite:/abs.db", path: "/abs.db"},
		{in: "sqlite::memory:", path: sqlite.Memory},
		{in: "sqlite://:memory:", path: sqlite.Memory},
		{in: "sqlite:///tmp/b.db?_synchronous=FULL", path: "/tmp/b.db", params: "_synchronous=FULL"},
		{in: "sqlite://my%20dir/x.db", path: "my dir/x.db"},
		{in: "sqlite://", bad: true},
		{in: "sqlite:///", bad: true},
		{in: "sqlite:", bad: true},
		{in: "postgres://x/y", bad: true},
		{in: "sqlite://x%zz", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			path, params, err := sqlite.ParseURL(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseURL(%q) = %q, want an error", tt.in, path)
				}
				return
			}
			if err != nil || path != tt.path || params.Encode() != tt.params {
				t.Fatalf("ParseURL(%q) = %q, %q, %v; want %q, %q", tt.in, path, params.Encode(), err, tt.path, tt.params)
			}
		})
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"sqlite://a.db", "sqlite:///a/b.db?x=1", "sqlite::memory:", "sqlite:%", "sqlite://?", "sqlite:\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, _, err := sqlite.ParseURL(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(strings.ToLower(s), "sqlite:") || path == "" || path == "/" || strings.ContainsRune(path, 0) {
			t.Fatalf("ParseURL(%q) accepted path %q", s, path)
		}
	})
}
