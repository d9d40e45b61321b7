package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/fail"
)

// TestErrorPolicy runs a command returning each kind of error through Execute: the exit code is
// the policy's and the one line shows no marker.
func TestErrorPolicy(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
	}{
		{"bad input from a workload", RunError(fmt.Errorf("starting: %w", fail.BadInput("-n 0; send at least 1"))), 2},
		{"failed run", RunError(errors.New("3 commands lost")), 1},
		{"interrupted run", RunError(fmt.Errorf("waiting: %w", context.Canceled)), 130},
		{"code kept", RunError(BadInput("--json: cannot write")), 2},
		{"unmarked outside a run", errors.New("no such file"), 2},
		{"failed", Failed(errors.New("2 check(s) failed")), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return tc.err }}
			var stderr strings.Builder
			code := Execute(root, nil, "iobench", &stderr)
			if code != tc.code || strings.Count(stderr.String(), "\n") != 1 || strings.Contains(stderr.String(), "bad input") {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line without the marker", code, stderr.String(), tc.code)
			}
		})
	}
}

// TestStrictUnknownSubcommand: a grouping command given an unknown subcommand exits 2.
func TestStrictUnknownSubcommand(t *testing.T) {
	root := &cobra.Command{Use: "iobench"}
	group := &cobra.Command{Use: "serve"}
	group.AddCommand(&cobra.Command{Use: "hello", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(group)
	Strict(root)
	var stderr strings.Builder
	if code := Execute(root, []string{"serve", "nosuch"}, "iobench", &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown command "nosuch"`) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	root.SetOut(&strings.Builder{})
	if code := Execute(root, []string{"serve"}, "iobench", &stderr); code != 0 {
		t.Fatalf("serve alone: exit %d; want its help and 0", code)
	}
}

// TestFlagErrorNamesTheCommand: a bad flag value points to the help of the command given, also
// when that command is a binary's root named by more than one word (the lean image's "iobench
// http URL").
func TestFlagErrorNamesTheCommand(t *testing.T) {
	for _, tc := range []struct {
		use  []string // root's, then a subcommand's when given
		args []string
		want string
	}{
		{[]string{"iobench http URL"}, []string{"-d", "xx"}, "see 'iobench http --help'"},
		{[]string{"iobench", "http URL"}, []string{"http", "-d", "xx"}, "see 'iobench http --help'"},
		{[]string{"iobench", "verify IMPL[:VARIANT]"}, []string{"verify", "-d", "xx"}, "see 'iobench verify --help'"},
	} {
		root := &cobra.Command{Use: tc.use[0]}
		cmd := root
		if len(tc.use) > 1 {
			cmd = &cobra.Command{Use: tc.use[1]}
			root.AddCommand(cmd)
		}
		cmd.RunE = func(*cobra.Command, []string) error { return nil }
		var d time.Duration
		DurationVarP(cmd.Flags(), &d, "duration", "d", 0, "")
		var stdout, stderr strings.Builder
		Quiet(root, &stdout, &stderr)
		if code := Execute(root, tc.args, "iobench", &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.use, code, stderr.String(), tc.want)
		}
	}
}
