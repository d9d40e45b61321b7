package postgres

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// rebindCacheMax bounds the cache of rewritten queries; queries are normally a few constants.
const rebindCacheMax = 4096

var (
	rebindCache sync.Map // query -> rewritten query
	rebindCount atomic.Int64
)

// rebindCached is Rebind with a bounded cache, so hot queries are rewritten once.
func rebindCached(query string) string {
	if v, ok := rebindCache.Load(query); ok {
		return v.(string)
	}
	out := Rebind(query)
	if rebindCount.Load() < rebindCacheMax {
		if _, loaded := rebindCache.LoadOrStore(query, out); !loaded {
			rebindCount.Add(1)
		}
	}
	return out
}

// Rebind rewrites each ? placeholder in query to $1, $2, ... in order. A ? inside a
// '...' or E'...' string, a "..." identifier, a $tag$...$tag$ string or a -- or /* */
// comment is left alone. A query without placeholders is returned unchanged.
func Rebind(query string) string {
	if strings.IndexByte(query, '?') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	rebind(query, func(n int) {
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}, b.WriteString)
	return b.String()
}

// rebind scans query, calling text for every run of text that is copied as it is and param
// with 1, 2, ... for each placeholder, in order.
func rebind(query string, param func(n int), text func(string) (int, error)) {
	n, last := 0, 0
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '?':
			_, _ = text(query[last:i])
			n++
			param(n)
			i++
			last = i
		case c == '\'':
			escapes := i > 0 && (query[i-1] == 'E' || query[i-1] == 'e') && (i < 2 || !identChar(query[i-2]))
			i = skipQuoted(query, i, '\'', escapes)
		case c == '"':
			i = skipQuoted(query, i, '"', false)
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			if j := strings.IndexByte(query[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(query)
			}
		case c == '/' && i+1 < len(query) && query[i+1] == '*':
			i = skipBlockComment(query, i)
		case c == '$' && (i == 0 || !identChar(query[i-1])):
			i = skipDollarQuoted(query, i)
		default:
			i++
		}
	}
	_, _ = text(query[last:])
}

// identChar reports whether c can continue an SQL identifier.
func identChar(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// skipQuoted returns the index after the quoted text opening at query[i]; a doubled quote
// stands for itself and, with escapes, a backslash escapes the next byte. Unterminated text
// runs to the end.
func skipQuoted(query string, i int, quote byte, escapes bool) int {
	for i++; i < len(query); i++ {
		switch query[i] {
		case '\\':
			if escapes {
				i++
			}
		case quote:
			if i+1 < len(query) && query[i+1] == quote {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(query)
}

// skipBlockComment returns the index after the /* comment opening at query[i]; PostgreSQL
// block comments nest.
func skipBlockComment(query string, i int) int {
	depth := 0
	for i < len(query) {
		switch {
		case query[i] == '/' && i+1 < len(query) && query[i+1] == '*':
			depth++
			i += 2
		case query[i] == '*' && i+1 < len(query) && query[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(query)
}

// skipDollarQuoted returns the index after the $tag$...$tag$ string opening at query[i], or
// i+1 when the $ opens none (e.g. a $1 parameter).
func skipDollarQuoted(query string, i int) int {
	j := i + 1
	if j < len(query) && query[j] >= '0' && query[j] <= '9' {
		return i + 1
	}
	for j < len(query) && query[j] != '$' {
		if !identChar(query[j]) {
			return i + 1
		}
		j++
	}
	if j >= len(query) {
		return i + 1
	}
	tag := query[i : j+1]
	if end := strings.Index(query[j+1:], tag); end >= 0 {
		return j + 1 + end + len(tag)
	}
	return len(query)
}
