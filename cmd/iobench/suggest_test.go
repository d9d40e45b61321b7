package main

import (
	"strings"
	"testing"
)

// TestNotFoundSuggests checks that every name iobench looks up and does not find (an impl, a
// scenario, a subcommand) is one line, exit 2, with the nearest known name.
func TestNotFoundSuggests(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"impl", []string{"verify", "go-helo", "--impls-dir", "../../impls"}, `impl not found: "go-helo"; did you mean "go-hello"?`},
		{"impl of a workload command", []string{"cachequeue", "--impl", "go-cachequueue", "--impls-dir", "../../impls"}, `did you mean "go-cachequeue"?`},
		{"scenario file", []string{"run", "scenarios/seed4-helo.yaml"}, `scenario scenarios/seed4-helo.yaml: no such file; did you mean "scenarios/seed4-hello.yaml"?`},
		{"scenario by its stem", []string{"run", "quik"}, `did you mean "scenarios/quick.yaml"?`},
		{"seeds", []string{"run", "seed"}, `did you mean "seeds"?`},
		{"subcommand", []string{"serve", "helo"}, `unknown command "helo" for "iobench serve"; did you mean "hello"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tc.args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tc.want)
			}
		})
	}
	if _, _, stderr := runCLI("verify", "zzzz-nothing-like-it", "--impls-dir", "../../impls"); strings.Contains(stderr, "did you mean") {
		t.Errorf("a name near nothing got a suggestion: %q", stderr)
	}
}

// TestUnknownVariantSuggests: a variant misspelt in NAME:VARIANT is named back with the nearest.
func TestUnknownVariantSuggests(t *testing.T) {
	code, _, stderr := runCLI("verify", "go-bus:asnyc", "--impls-dir", "../../impls")
	if want := `impl go-bus has no variant "asnyc"; did you mean "async"? choose from sync, async`; code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
