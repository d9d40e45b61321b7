// Package scenarios embeds the scenario files shipped with iobench, so that `iobench run` works
// from any directory.
package scenarios

import "embed"

// Files holds every *.yaml of this directory.
//
//go:embed *.yaml
var Files embed.FS

// Quick is the name of the quick suite, run by `iobench run` with no argument.
const Quick = "quick.yaml"

// Seeds are the five seeds' scenario files, in seed order: `iobench run seeds` runs them as one
// suite with one report.
var Seeds = []string{"seed1-bus.yaml", "seed2-publish.yaml", "seed3-cachequeue.yaml", "seed4-hello.yaml", "seed5-fanout.yaml"}
