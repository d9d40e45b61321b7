package scenario

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	nearest "github.com/iobench/iobench/internal/suggest"
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
	if best, ok := nearest.Closest(got, names); ok {
		return fmt.Sprintf("did you mean %q? %s", best, list)
	}
	return list
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
