//go:build !linux

package relay

import (
	"net"
	"time"
)

// stampedReader reads a connection and takes the time of each read's return (the kernel's
// receive stamps are read on Linux only).
type stampedReader struct{ c net.Conn }

func newStampedReader(c net.Conn) *stampedReader { return &stampedReader{c: c} }

// Read reads into b and returns when the read returned.
func (s *stampedReader) Read(b []byte) (int, time.Time, error) {
	n, err := s.c.Read(b)
	return n, time.Now(), err
}
