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
// suite with one report. Their short defaults are sized for 15 minutes on 2 cores, installs not
// counted; each file's comment gives its estimate (runs x (start + warm-up + measured + check)):
// seed 1 ~100 s, seed 2 ~90 s, seed 3 ~160 s, seed 4 ~130 s (2m16s measured on a machine busy
// with other work), seed 5 ~75 s: about 9-10 minutes with the services' starts.
var Seeds = []string{"seed1-bus.yaml", "seed2-publish.yaml", "seed3-cachequeue.yaml", "seed4-hello.yaml", "seed5-fanout.yaml"}
