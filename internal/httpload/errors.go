package httpload

import (
	"context"
	"errors"
	"net"
	"os"
)

// Class says which phase of a request failed, as wrk counts socket errors: connect, read, write and
// timeout. The engine keeps one counter per Class; the values are small and dense so they can index
// an array.
type Class int

// The classes of failure.
const (
	// Connect is a failed Dial, a connect timeout included (as in wrk).
	Connect Class = iota
	// Read is a failure while reading a response: the server closed or reset the connection
	// before a full response, or sent one that does not parse.
	Read
	// Write is a failure to send the request.
	Write
	// Timeout is the deadline of Do passing before the response was complete.
	Timeout
	// Length is a response whose body was longer than its framing (Content-Length) said: bytes
	// followed it before the next request was sent. wrk counts it as a success, or as a read
	// error on the next response; seed 4's ReactPHP sent 13 bytes under Content-Length: 12.
	Length
)

// String returns the class's lowercase name: "connect", "read", "write", "timeout" or "length".
func (c Class) String() string {
	switch c {
	case Connect:
		return "connect"
	case Read:
		return "read"
	case Write:
		return "write"
	case Timeout:
		return "timeout"
	case Length:
		return "length"
	}
	return "unknown"
}

// Error is a failed Dial or Do: the class of failure and the underlying error.
type Error struct {
	Class Class
	Err   error
}

// Error returns the class and the cause, e.g. "read: connection closed mid-response".
func (e *Error) Error() string { return e.Class.String() + ": " + e.Err.Error() }

// Unwrap returns the underlying error, so errors.Is(err, io.EOF) and friends work.
func (e *Error) Unwrap() error { return e.Err }

// ClassOf returns the class of err: the Class of an *Error in its chain; otherwise Timeout for a
// passed deadline (os.ErrDeadlineExceeded, context.DeadlineExceeded, a net.Error that timed out) and
// Read for anything else, such as io.EOF or a reset before a full response.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	if isTimeout(err) {
		return Timeout
	}
	return Read
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ioError classifies an I/O error seen during Do: a passed deadline is a Timeout, anything else
// belongs to the phase (Read or Write) that saw it.
func ioError(phase Class, err error) *Error {
	if isTimeout(err) {
		return &Error{Class: Timeout, Err: err}
	}
	return &Error{Class: phase, Err: err}
}
