// Package version holds the iobench version and the git commit it was built from.
// Both are set at link time by the Makefile (-ldflags -X); a plain `go build`
// leaves the defaults, and Commit then falls back to the module build info.
package version

import "runtime/debug"

// Version is the release version, set with -ldflags "-X .../version.Version=...".
var Version = "0.1.0-dev"

// Commit is the git commit, set with -ldflags "-X .../version.Commit=...".
var Commit = ""

// Build tells one build from another of the same commit: the Makefile sets it, with -ldflags
// "-X .../version.Build=...", to the same value in every binary it links at once.
var Build = ""

// Stamp identifies this build: two binaries with the same Stamp were built together.
func Stamp() string { return Version + " " + GitCommit() + " " + Build }

// GitCommit returns Commit, or the VCS revision recorded by the Go toolchain, or "unknown".
func GitCommit() string {
	if Commit != "" {
		return Commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}
