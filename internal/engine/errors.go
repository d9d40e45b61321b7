package engine

import (
	"errors"

	"github.com/iobench/iobench/internal/httpload"
)

// Error classes, as wrk counts socket errors, plus responses that failed their checks.
const (
	ErrConnect = "connect"
	ErrRead    = "read"
	ErrWrite   = "write"
	ErrTimeout = "timeout"
	ErrLength  = "length" // a body longer than its Content-Length said
	ErrStatus  = "status" // a status outside 2xx/3xx or outside --expect-status
	ErrExpect  = "expect" // a body that did not match --expect-body
	// ErrInFlight counts the requests in flight behind another on a connection that closed or
	// failed (pipelining): written, or queued to be, and never answered.
	ErrInFlight = "inflight"
	// ErrReset counts the HTTP/2 streams the server reset (RST_STREAM); the record counts them
	// by error code too.
	ErrReset = "reset"
)

// ErrorClasses lists the classes in the order reports show them.
var ErrorClasses = []string{ErrConnect, ErrRead, ErrWrite, ErrTimeout, ErrLength, ErrStatus, ErrExpect, ErrInFlight, ErrReset}

const nClasses = 9

// errInFlight ends a request in flight on a connection that closed before answering it.
var errInFlight = errors.New("the connection closed with this request in flight")

// errReset ends an HTTP/2 stream the server reset.
var errReset = errors.New("the server reset the stream (RST_STREAM)")

func classIndex(c string) int {
	for i, v := range ErrorClasses {
		if v == c {
			return i
		}
	}
	return 1
}

func socketClass(err error) int {
	switch err {
	case errInFlight:
		return classIndex(ErrInFlight)
	case errReset:
		return classIndex(ErrReset)
	}
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
