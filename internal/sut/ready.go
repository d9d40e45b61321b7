package sut

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Errors of Start, matched with errors.Is.
var (
	// ErrExited is the error of a process that exited before it was ready.
	ErrExited = errors.New("exited before it was ready")
	// ErrNotReady is the error of a process that was not ready within Ready.Timeout.
	ErrNotReady = errors.New("not ready in time")
	// ErrStart is the error of a command that could not be started (not found, not executable).
	ErrStart = errors.New("cannot start")
)

// startError is a one-line error of Start that matches one of the errors above and wraps the
// error that caused it, if any.
type startError struct {
	kind error
	msg  string
	err  error
}

func (e *startError) Error() string        { return e.msg }
func (e *startError) Is(target error) bool { return target == e.kind }
func (e *startError) Unwrap() error        { return e.err }

// waitReady waits until every condition of Ready holds, the process exits, ctx ends or the
// timeout passes.
func (p *Process) waitReady(ctx context.Context) error {
	r := p.opts.Ready
	var logCh, streamCh <-chan struct{}
	if r.Log != nil {
		logCh = p.out.matched
	}
	if r.Stream {
		streamCh = p.streamReady
	}
	tcp := r.TCP
	deadline := time.NewTimer(r.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond) // polling the TCP port, not synchronizing
	defer tick.Stop()
	for {
		if tcp != "" && accepts(tcp) {
			tcp = ""
		}
		if logCh == nil && streamCh == nil && tcp == "" {
			return nil
		}
		select {
		case <-logCh:
			logCh = nil
		case <-streamCh:
			streamCh = nil
		case <-tick.C:
		case <-p.done:
			p.waitDrained()
			if closed(logCh) && closed(streamCh) && tcp == "" {
				return nil // it said it was ready, then exited: the caller sees Done
			}
			return &startError{kind: ErrExited, msg: fmt.Sprintf("%s exited before it was ready (%v): %s", p.opts.Name, status(p.err), p.describe())}
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return &startError{kind: ErrNotReady, msg: fmt.Sprintf("%s not ready within %v (waiting for %s): %s",
				p.opts.Name, r.Timeout, waitingFor(logCh, streamCh, tcp, r), p.describe())}
		}
	}
}

// accepts reports whether addr accepts a TCP connection now.
func accepts(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// closed reports whether ch is nil (nothing to wait for) or closed.
func closed(ch <-chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitingFor names the conditions that do not hold yet.
func waitingFor(logCh, streamCh <-chan struct{}, tcp string, r Ready) string {
	var what []string
	if logCh != nil {
		what = append(what, fmt.Sprintf("a line matching %s", r.Log))
	}
	if streamCh != nil {
		what = append(what, "the report stream to say ready")
	}
	if tcp != "" {
		what = append(what, tcp+" to accept connections")
	}
	return strings.Join(what, " and ")
}

// status is the exit status of a process, "exit status 0" for a clean exit.
func status(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
