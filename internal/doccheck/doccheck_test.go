package doccheck

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, two levels above this package.
const root = "../.."

// topDirs are the repository's folders a doc may name; a path under any other (bin/, results/,
// k8s/: what a command writes) is the user's, not the repository's.
var topDirs = []string{"bench", "cmd", "docs", "impls", "internal", "scenarios", "scripts"}

var (
	// repoPath matches a path that starts with one of topDirs, after a space, a quote, a
	// backtick or a bracket.
	repoPath = regexp.MustCompile("(?:^|[\\s`'\"(\\[])((?:" + strings.Join(topDirs, "|") + `)/[^\s` + "`" + `'"()\[\],;]*)`)
	// link matches a Markdown link's target.
	link = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// outside matches what points outside the repository: a shared/ folder, a design guide's
	// sections, this project's issues (other projects' are owner/repo#N).
	outside = regexp.MustCompile(`(?i)(^|[^\w/.-])shared/|DESIGN(\.md)? §|DESIGN\.md|\bissues? \d+`)
)

// docs returns the user docs, relative to root.
func docs(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "BENCHMARKS.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(filepath.Join(root, "impls"), func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == "vendor"):
			return filepath.SkipDir
		case !d.IsDir() && strings.EqualFold(d.Name(), "README.md"):
			more = append(more, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range more {
		rel, _ := filepath.Rel(root, p)
		files = append(files, rel)
	}
	return files
}

// checkable cuts a path named in prose down to the part that must exist: the folder before a
// placeholder (<lang>, {driver}, *), a "|" of alternatives or a ":" of a line number, and no
// trailing full stop.
func checkable(p string) string {
	if i := strings.IndexAny(p, "<{*|:"); i >= 0 {
		p = p[:strings.LastIndex(p[:i], "/")+1]
	}
	return strings.TrimRight(p, ".!?")
}

// problems returns what is wrong in one doc of the repository at dir, each with its line.
func problems(t *testing.T, dir, doc string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, doc))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		at := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("%s:%d: ", doc, n)+fmt.Sprintf(format, args...))
		}
		if m := outside.FindString(line); m != "" {
			at("points outside the repository (%q); write what is needed into the docs", strings.TrimSpace(m))
		}
		for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
			if p := checkable(m[1]); !exists(dir, p) {
				at("names %s, which the repository does not have", m[1])
			}
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			target := strings.SplitN(m[1], "#", 2)[0]
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if !exists(dir, filepath.Join(filepath.Dir(doc), target)) {
				at("links to %s, which does not exist", m[1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// exists reports whether the repository at dir has path p.
func exists(dir, p string) bool {
	_, err := os.Stat(filepath.Join(dir, p))
	return err == nil
}

// TestDocsStandAlone fails on every path a doc names that the repository lacks, every relative
// link that does not resolve, and every pointer outside the repository.
func TestDocsStandAlone(t *testing.T) {
	var all []string
	for _, doc := range docs(t) {
		all = append(all, problems(t, root, doc)...)
	}
	if len(all) > 0 {
		t.Errorf("%d problem(s) in the docs:\n%s", len(all), strings.Join(all, "\n"))
	}
}

// TestProblemsFound runs the check on a made-up repository whose doc has one of each problem and
// one of each thing that is fine, so that TestDocsStandAlone passing means the docs are clean,
// not that the check saw nothing.
func TestProblemsFound(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"docs/METHOD.md", "internal/engine/run.go", "impls/go/hello/impl.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc := strings.Join([]string{
		"Fine: `internal/engine/run.go`, internal/engine, (docs/METHOD.md), impls/<lang>/<folder>/impl.yaml,",
		"fine: [method](METHOD.md#warnings), [wrk](https://github.com/wg/wrk), owner/repo#12, bin/iobench, k8s/run.yaml.",
		"Gone: `internal/nosuch/x.go`, [link](NOPE.md), scenarios/seed9.yaml.",
		"Outside: shared/DESIGN.md, as DESIGN §5.3 says, asked in issue 15.",
	}, "\n")
	if err := os.WriteFile(filepath.Join(dir, "docs", "X.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems(t, dir, "docs/X.md"), "\n")
	for _, want := range []string{"X.md:3: names internal/nosuch/x.go", "X.md:3: links to NOPE.md", "X.md:3: names scenarios/seed9.yaml",
		`X.md:4: points outside the repository ("shared/")`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, ":1:") || strings.Contains(got, ":2:") {
		t.Errorf("a fine line was reported:\n%s", got)
	}
	if n := strings.Count(got, "\n") + 1; n != 4 {
		t.Errorf("%d problems, want 4 (one for line 4: the first pointer outside):\n%s", n, got)
	}
}
