// Package fail names the kind of error a user must fix, so that every workload marks it the same
// way and every iobench command maps it to the same exit code (internal/cli): bad input exits 2,
// a run that failed or could not be verified 1, an interrupt 130.
package fail

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadInput is matched (errors.Is) by errors the user must fix before a run can begin: a flag,
// a manifest, an unreachable service, a prerequisite that is not installed.
var ErrBadInput = errors.New("bad input")

// BadInput returns an error matching ErrBadInput with the message format gives.
func BadInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// Text returns err's message without the marker ErrBadInput puts in it, as users read it.
func Text(err error) string {
	return strings.ReplaceAll(err.Error(), ErrBadInput.Error()+": ", "")
}
