package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/suite"
)

// TestSkipLines checks that skipped runs come out as one line per reason, naming every workload
// and impl it kept from running and how many runs, and that measured and failed runs are not in
// them.
func TestSkipLines(t *testing.T) {
	redis := service.NotInstalled("redis: redis-server not found; install it with scripts/install-services.sh (apt-get install redis-server)")
	node := &impl.MissingError{Impl: "node-fanout", Missing: []impl.Missing{{Kind: "command", Name: "node", Hint: "install Node.js"}}}
	run := func(w, i string) scenario.Run { return scenario.Run{Workload: w, Impl: i} }
	outs := []suite.Outcome{
		{Run: run("cachequeue", "go-cachequeue:async"), Skip: redis},
		{Run: run("fanout", "node-fanout"), Skip: node},
		{Run: run("cachequeue", "node-cachequeue"), Skip: redis},
		{Run: run("cachequeue", "go-cachequeue:async"), Skip: redis},
		{Run: run("fanout", "go-fanout"), Err: errors.New("failed")},
		{Run: run("fanout", "node-fanout"), Skip: node},
	}
	got := strings.Join(skipLines(outs), "\n")
	want := "skipped cachequeue go-cachequeue:async, cachequeue node-cachequeue (3 run(s)): redis: redis-server not found; install it with scripts/install-services.sh (apt-get install redis-server)\n" +
		"skipped fanout node-fanout (2 run(s)): impl node-fanout: missing command node (install Node.js)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !suite.NotInstalled(redis) || !suite.NotInstalled(node) || suite.NotInstalled(errors.New("failed")) {
		t.Error("suite.NotInstalled does not tell a missing runtime or server from a failure")
	}
}
