package backend

import (
	"context"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := &Registry[string]{kind: "thing"}
	if _, err := r.Open(t.Context(), "a://x", Options{}); err == nil || err.Error() != "open: no thing backend is linked into this build; import one (see internal/backend/open)" {
		t.Fatalf("empty registry: %v", err)
	}
	r.Register(func(_ context.Context, u string, o Options) (string, error) { return "a " + u + " " + o.QueueName, nil }, "a", "A+b")
	r.Register(func(_ context.Context, u string, _ Options) (string, error) { return "c " + u, nil }, "c")
	if got := strings.Join(r.Schemes(), ","); got != "a,a+b,c" {
		t.Fatalf("Schemes = %s", got)
	}
	for url, want := range map[string]string{"a://x": "a a://x q", "A+B://u:p@h": "a a+b://u:p@h q", "C:x": "c c:x"} {
		if got, err := r.Open(t.Context(), url, Options{QueueName: "q"}); err != nil || got != want {
			t.Errorf("Open(%q) = %q, %v; want %q", url, got, err, want)
		}
	}
	for url, want := range map[string]string{
		"d://u:s3cret@h": `open: unsupported thing URL scheme "d"; use one of a://, a+b://, c://`,
		"h:1":            `open: unsupported thing URL scheme "h"; use one of a://, a+b://, c://`,
		"1h:1":           "open: thing URL has no scheme; use one of a://, a+b://, c://",
		"":               "open: thing URL has no scheme; use one of a://, a+b://, c://",
	} {
		if _, err := r.Open(t.Context(), url, Options{}); err == nil || err.Error() != want {
			t.Errorf("Open(%q) error\n got %v\nwant %s", url, err, want)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	open := func(context.Context, string, Options) (int, error) { return 0, nil }
	for name, reg := range map[string]func(r *Registry[int]){
		"duplicate":  func(r *Registry[int]) { r.Register(open, "a"); r.Register(open, "A") },
		"no schemes": func(r *Registry[int]) { r.Register(open) },
		"bad scheme": func(r *Registry[int]) { r.Register(open, "a:b") },
		"nil opener": func(r *Registry[int]) { r.Register(nil, "a") },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			reg(&Registry[int]{kind: "thing"})
		})
	}
}

func FuzzScheme(f *testing.F) {
	for _, s := range []string{"redis://h", "", ":", "a:", "1a:", "sqlite::memory:", "A+b-c.d:x", "é:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc := Scheme(s)
		if sc == "" {
			return
		}
		if !strings.HasPrefix(strings.ToLower(s), sc+":") || sc != strings.ToLower(sc) {
			t.Fatalf("Scheme(%q) = %q", s, sc)
		}
	})
}
