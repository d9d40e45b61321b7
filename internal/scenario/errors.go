package scenario

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalid is wrapped by every error Load returns for a scenario that cannot run (as opposed
// to a file that cannot be read), so callers can map it to bad input.
var ErrInvalid = errors.New("invalid scenario")

// Error is one problem in a scenario file, at a line and column, with a hint to fix it.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no single place
	Col  int
	Msg  string
	Hint string
}

// Error returns "file:line:col: message; hint".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Errors are all the problems found in one or more files, in file and line order.
type Errors []*Error

// Error lists every problem, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.Is(err, ErrInvalid) hold.
func (es Errors) Unwrap() error { return ErrInvalid }

// sorted returns es in file, line and column order, keeping the order of equal places.
func (es Errors) sorted() Errors {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return es
}

// suggest returns a hint naming the closest of known to got ("did you mean ...?") and the list
// of known names.
func suggest(what, got string, known []string) string {
	names := append([]string(nil), known...)
	sort.Strings(names)
	list := fmt.Sprintf("%s: %s", what, strings.Join(names, ", "))
	if len(names) == 0 {
		return "no " + what + " exist"
	}
	best, bestD := "", 1<<30
	for _, n := range names {
		if d := distance(strings.ToLower(got), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= 2 || (bestD <= len(got)/3 && bestD < len(best)) {
		return fmt.Sprintf("did you mean %q? %s", best, list)
	}
	return list
}

// distance is the Levenshtein distance between a and b (bounded inputs: names from a file).
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

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
