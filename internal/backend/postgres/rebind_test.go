package postgres

import (
	"strconv"
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"SELECT 1", "SELECT 1"},
		{"?", "$1"},
		{"INSERT INTO customers (id, name, email) VALUES (?, ?, ?)", "INSERT INTO customers (id, name, email) VALUES ($1, $2, $3)"},
		{"SELECT '?' , ?", "SELECT '?' , $1"},
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
		{`SELECT E'\'?', ?`, `SELECT E'\'?', $1`},
		{`SELECT e'\\', ?`, `SELECT e'\\', $1`},
		{`SELECT '\', ?`, `SELECT '\', $1`}, // standard strings: backslash is plain
		{`SELECT "col?" FROM "t""?" WHERE x = ?`, `SELECT "col?" FROM "t""?" WHERE x = $1`},
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{"SELECT ? -- why?", "SELECT $1 -- why?"},
		{"SELECT /* a ? /* nested ? */ still ? */ ?", "SELECT /* a ? /* nested ? */ still ? */ $1"},
		{"SELECT $$ ? $$, ?", "SELECT $$ ? $$, $1"},
		{"SELECT $tag$ ? $x$ ? $tag$, ?", "SELECT $tag$ ? $x$ ? $tag$, $1"},
		{"SELECT a$b, ?", "SELECT a$b, $1"},
		{"SELECT $1, ?", "SELECT $1, $1"}, // $1 opens no dollar quote; do not mix styles
		{"SELECT 'unterminated ?", "SELECT 'unterminated ?"},
		{"SELECT $x ?", "SELECT $x $1"},
		{"?,?,?,?,?,?,?,?,?,?,?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Rebind(tt.in); got != tt.want {
				t.Errorf("Rebind(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if got := rebindCached(tt.in); got != tt.want {
				t.Errorf("rebindCached(%q) = %q", tt.in, got)
			}
		})
	}
}

func BenchmarkRebindCached(b *testing.B) {
	q := "INSERT INTO customers (id, name, email) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING"
	b.ReportAllocs()
	for b.Loop() {
		_ = rebindCached(q)
	}
}

// FuzzRebind checks, for any input, that only ? bytes are replaced, by $1..$n in order, and
// that everything else is copied unchanged.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"SELECT ?", "'?'", `E'\'?'`, "\"?\"", "-- ?\n?", "/* ? */?", "$$?$$?", "$a$?$a$?", "$1?", "a$b?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		var segs []string
		n := 0
		rebind(q, func(k int) {
			n++
			if k != n {
				t.Fatalf("placeholder numbered %d, want %d", k, n)
			}
			segs = append(segs, "?")
		}, func(s string) (int, error) {
			segs = append(segs, s)
			return len(s), nil
		})
		if back := strings.Join(segs, ""); back != q {
			t.Fatalf("placeholders put back: %q, want the input %q", back, q)
		}
		if n > strings.Count(q, "?") {
			t.Fatalf("%d placeholders from %d ? bytes", n, strings.Count(q, "?"))
		}
		out := Rebind(q)
		if n == 0 && out != q {
			t.Fatalf("no placeholders but Rebind changed %q to %q", q, out)
		}
		if n > 0 && !strings.Contains(out, "$"+strconv.Itoa(n)) {
			t.Fatalf("Rebind(%q) = %q lacks $%d", q, out, n)
		}
	})
}

// FuzzRebindStructured builds queries from known pieces, so the expected placeholder count is
// known: bare ? count, ? inside literals, identifiers, comments and dollar quotes do not.
func FuzzRebindStructured(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		pieces := []struct {
			text   string
			params int
		}{
			{"?", 1},
			{"'?'", 0},
			{"'a''?'", 0},
			{`E'\'?'`, 0},
			{`"?"`, 0},
			{"-- ?\n", 0},
			{"/* ? /* ? */ ? */", 0},
			{"$q$ ? $q$", 0},
			{" x = ", 0},
			{"$$?$$", 0},
			{",", 0},
		}
		var b strings.Builder
		want := 0
		for _, op := range prog {
			p := pieces[int(op)%len(pieces)]
			b.WriteString(p.text)
			b.WriteByte(' ')
			want += p.params
		}
		q := b.String()
		out := Rebind(q)
		if strings.Count(out, "?") != strings.Count(q, "?")-want {
			t.Fatalf("Rebind(%q) = %q: want %d placeholders replaced", q, out, want)
		}
		for i := 1; i <= want; i++ {
			if !strings.Contains(out, "$"+strconv.Itoa(i)+" ") {
				t.Fatalf("Rebind(%q) = %q lacks $%d", q, out, i)
			}
		}
	})
}
