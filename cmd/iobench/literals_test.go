package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/workload"
)

// TestNoWorkloadNamesOutsideTheirPackage: no Go file outside internal/workload/NAME/ spells a
// registered workload's name as a string literal; code elsewhere goes through the registry or
// the package's Name constant. Tests are exempt (they name workloads to test them), and so are
// homonyms: http, which is also the URL scheme and the generator's command, and "fanout" in the
// bus package, where it is an AMQP exchange type.
func TestNoWorkloadNamesOutsideTheirPackage(t *testing.T) {
	names := map[string]bool{}
	for _, n := range workload.Names() {
		if n != "http" {
			names[n] = true
		}
	}
	root := "../.."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "impls" || d.Name() == "results") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			homonym := s == "fanout" && strings.HasPrefix(rel, filepath.Join("internal", "workload", "bus")+string(filepath.Separator))
			if names[s] && !homonym && !strings.HasPrefix(rel, filepath.Join("internal", "workload", s)+string(filepath.Separator)) {
				t.Errorf("%s: the workload name %q outside its package; use %s.Name or the registry", fset.Position(lit.Pos()), s, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCommandFilesStayThin: the CLI only parses flags, wires packages and maps errors, so no
// file of it passes 200 lines; logic that grows belongs in a package under internal/.
func TestCommandFilesStayThin(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > 200 {
			t.Errorf("%s has %d lines; move its logic into internal/", f, n)
		}
	}
}
