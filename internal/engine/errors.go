package engine

import "github.com/iobench/iobench/internal/httpload"

// Error classes, as wrk counts socket errors, plus responses that failed their checks.
const (
	ErrConnect = "connect"
	ErrRead    = "read"
	ErrWrite   = "write"
	ErrTimeout = "timeout"
	ErrLength  = "length" // a body longer than its Content-Length said
	ErrStatus  = "status" // a status outside 2xx/3xx or outside --expect-status
	ErrExpect  = "expect" // a body that did not match --expect-body
)

// ErrorClasses lists the classes in the order reports show them.
var ErrorClasses = []string{ErrConnect, ErrRead, ErrWrite, ErrTimeout, ErrLength, ErrStatus, ErrExpect}

const nClasses = 7

func classIndex(c string) int {
	for i, v := range ErrorClasses {
		if v == c {
			return i
		}
	}
	return 1
}

func socketClass(err error) int {
	switch httpload.ClassOf(err) {
	case httpload.Connect:
		return 0
	case httpload.Write:
		return 2
	case httpload.Timeout:
		return 3
	case httpload.Length:
		return 4
	default:
		return 1
	}
}
