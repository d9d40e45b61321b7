//go:build race

package httpload

const raceEnabled = true
