package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds the loader arbitrary files: it must never panic, must fail only with Errors
// (wrapping ErrInvalid, each with a message), and what it accepts must expand into runs with
// unique IDs, as many as the scenarios ask for.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"name: x\nworkload: hello\nimpls: [go-hello]\nparams: {load: [closed, open], connections: [1, 2]}\n",
		"name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 5, mode: [sync, async]}\nservices: {broker: \"amqp://127.0.0.1:1/\"}\n",
		"a: &a [1, 2]\nb: *a\n",
		"name: x\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:9\"}\n---\nname: y\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:9\"}\n",
		"- [",
		"name: &n x\nworkload: *n\n",
	} {
		f.Add([]byte(s))
	}
	known := Builtin(repoImpls(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data, known)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || !errors.Is(err, ErrInvalid) || len(es) == 0 {
				t.Fatalf("error %T is not a non-empty Errors: %v", err, err)
			}
			for _, e := range es {
				if e.Msg == "" || e.File != "fuzz.yaml" {
					t.Fatalf("bad error %+v", e)
				}
			}
			return
		}
		want := 0
		for _, sc := range s.Scenarios {
			n := sc.Repeats * max(1, len(sc.Impls))
			for _, p := range sc.Params {
				n *= len(p.Values)
			}
			want += n
		}
		if len(s.Runs) != want || want == 0 {
			t.Fatalf("%d runs, want %d", len(s.Runs), want)
		}
		seen := map[string]bool{}
		for i, r := range s.Runs {
			if seen[r.ID] || r.Index != i {
				t.Fatalf("run %d: ID %q duplicated or index %d wrong", i, r.ID, r.Index)
			}
			seen[r.ID] = true
		}
	})
}
