// Package doccheck holds the test that keeps the user docs (README.md, BENCHMARKS.md, docs/ and
// any impl's README) standing alone: every repository path they name exists, every relative
// link resolves, and nothing points outside the repository (a shared/ folder, a design guide's
// sections, this project's issue tracker). It has no code of its own.
package doccheck
