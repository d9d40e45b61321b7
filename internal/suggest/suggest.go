// Package suggest finds, among the names a command knows, the one nearest a name it was given
// and did not find, for the "did you mean" of every not-found error (impls, scenarios,
// workloads, subcommands).
package suggest

import "strings"

// Closest returns the name of known nearest got by edit distance, case ignored, and whether it
// is near enough to suggest: at most 2 edits, or at most a third of got's length and fewer than
// the name's own.
func Closest(got string, known []string) (string, bool) {
	best, bestD := "", 1<<30
	for _, n := range known {
		if d := distance(strings.ToLower(got), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || got == "" {
		return "", false
	}
	return best, bestD <= 2 || (bestD <= len(got)/3 && bestD < len(best))
}

// Hint is `did you mean "NAME"?` for the name of known nearest got, or "" when none is near.
func Hint(got string, known []string) string {
	if n, ok := Closest(got, known); ok {
		return `did you mean "` + n + `"?`
	}
	return ""
}

// distance is the Levenshtein distance between a and b; names longer than 64 bytes are never
// near (bounded work for input from the command line or a file).
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
