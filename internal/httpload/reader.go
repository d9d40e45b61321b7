package httpload

import (
	"errors"
	"fmt"
	"io"
)

// reader drives a Parser from a blocking io.Reader: Conn.Do's side of the shared parser.
type reader struct {
	Parser
	src io.Reader
	err error // sticky error from src
}

func newReader(src io.Reader, size int) reader {
	rd := reader{src: src}
	rd.Init(size)
	return rd
}

// readResponse reads one full response. head says the request was HEAD (no body whatever the
// headers say). When keep is true the body is copied into *body, reusing its capacity.
func (rd *reader) readResponse(head, keep bool, body *[]byte) (Response, error) {
	rd.keep = keep
	if keep {
		rd.body = *body
	}
	rd.Begin(head)
	err := rd.run()
	if keep {
		*body = rd.body
	}
	resp := rd.Response()
	if err != nil {
		return resp, rd.fail(err)
	}
	return resp, nil
}

// run parses and reads until the response is complete or fails.
func (rd *reader) run() error {
	for {
		done, err := rd.Parse()
		if done || err != nil {
			return err
		}
		if err := rd.fill(); err == io.EOF {
			if done, err = rd.EOF(); done || err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
	}
}

// fill reads at least one more byte into the buffer.
func (rd *reader) fill() error {
	if rd.err != nil {
		return rd.err
	}
	space, err := rd.Space()
	if err != nil {
		return err
	}
	for range 100 {
		n, err := rd.src.Read(space)
		if n < 0 || n > len(space) {
			n = 0
			err = errors.New("invalid read count from the connection")
		}
		rd.Wrote(n)
		if err != nil {
			rd.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	rd.err = io.ErrNoProgress
	return rd.err
}

// fail turns a parse or I/O error into a Read or Timeout *Error with a clear message.
func (rd *reader) fail(err error) error { return Fail(err) }

// Fail classifies an error met while reading a response: an *Error stays as it is, a passed
// deadline is a Timeout, anything else (a parse error, a reset, an early EOF) is a Read error.
func Fail(err error) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case isTimeout(err):
		return &Error{Class: Timeout, Err: err}
	case err == io.ErrUnexpectedEOF:
		return &Error{Class: Read, Err: fmt.Errorf("connection closed mid-response: %w", err)}
	}
	return &Error{Class: Read, Err: err}
}
