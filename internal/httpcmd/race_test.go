//go:build race

package httpcmd_test

const raceEnabled = true
