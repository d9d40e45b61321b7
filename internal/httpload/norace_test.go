//go:build !race

package httpload

const raceEnabled = false
