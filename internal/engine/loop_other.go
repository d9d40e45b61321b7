//go:build !linux

package engine

import "errors"

// loopConn is the event loop's connection; the loop runs on Linux only.
type loopConn struct{}

func loopSupported() error { return errors.New("the event loop needs Linux's epoll") }

func (r *run) executeLoop() (<-chan struct{}, error) { return nil, loopSupported() }

func coalesces(*Config) bool { return false }
