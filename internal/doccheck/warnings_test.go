package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// warningText matches the text of a warning where the code adds one to a record: appended
	// to a list of warnings (w, r.warnings, r.warns, rec.Warnings), or an engine's note.
	warningText = regexp.MustCompile(`(?:\bw|r\.warnings|r\.warns|rec\.Warnings) = append\([^,]+, (?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)*)"|"(engine: (?:[^"\\]|\\.)*)"|"(the collector refused )"`)
	// verb matches a fmt verb, where a warning's text varies.
	verb = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z%]`)
	// clause splits a warning's text where a phrase ends.
	clause = regexp.MustCompile(`[:;()]`)
)

// key returns the part of a warning's text METHOD.md must contain: its first fixed phrase of 8
// characters or more, between fmt verbs and punctuation ("rests on" of "p%g rests on %.0f
// samples beyond it: ...").
func key(text string) string {
	for _, piece := range clause.Split(verb.ReplaceAllString(text, "\x00"), -1) {
		for _, p := range strings.Split(piece, "\x00") {
			if p = strings.Trim(p, " ,.'/"); len(p) >= 8 {
				return p
			}
		}
	}
	return ""
}

// TestMethodListsEveryWarning fails for every warning the code can add to a record that
// docs/METHOD.md does not list.
func TestMethodListsEveryWarning(t *testing.T) {
	method, err := os.ReadFile(filepath.Join(root, "docs", "METHOD.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range warningText.FindAllStringSubmatch(string(src), -1) {
			text := m[1] + m[2] + m[3]
			n++
			if k := key(text); k == "" || !strings.Contains(string(method), k) {
				t.Errorf("docs/METHOD.md does not list the warning %q (%s); add a row: what it means, what to do", text, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 25 {
		t.Errorf("found %d warnings in the code; the pattern no longer finds them", n)
	}
}

func TestKey(t *testing.T) {
	for text, want := range map[string]string{
		"p%g rests on %.0f samples beyond it: run at least %d requests": "rests on",
		"agent %d/%d was saturated: its generator":                      "was saturated",
		"engine: the event loop cannot run here (%v); the goroutine":    "the event loop cannot run here",
		"interrupted: this is a partial result":                         "interrupted",
		"%d connect errors: the server refused":                         "connect errors",
	} {
		if got := key(text); got != want {
			t.Errorf("key(%q) = %q, want %q", text, got, want)
		}
	}
}
