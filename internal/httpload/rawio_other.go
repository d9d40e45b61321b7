//go:build !linux

package httpload

import "net"

// rawIO returns nc: raw reads and writes are Linux's (rawio_linux.go).
func rawIO(nc net.Conn) net.Conn { return nc }
