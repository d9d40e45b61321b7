package cli

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// Listen opens the TCP listener of a `serve` command on addr; a failure is bad input in one
// line, with what to do about it.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError(addr, err)
	}
	return ln, nil
}

func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return BadInput("listen on %s: address already in use; stop the process using that port (see: ss -ltnp | grep %s) or pass --listen 127.0.0.1:OTHER_PORT", addr, portOf(addr))
	case errors.Is(err, syscall.EACCES):
		return BadInput("listen on %s: permission denied; use a port above 1023 or run with the right privileges", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return BadInput("listen on %s: no such local address; use an address of this machine, e.g. --listen 127.0.0.1:8080", addr)
	}
	return BadInput("listen on %s: %v; pass --listen host:port, e.g. 127.0.0.1:8080", addr, err)
}

func portOf(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return ":" + port
	}
	return addr
}

// FlagOrEnv is a flag's value when given (changed), else the environment variable name's when
// set, else the flag's default: how a `serve` command takes what a run sets in IOBENCH_*.
func FlagOrEnv(changed bool, value, name string) string {
	if v := os.Getenv(name); !changed && v != "" {
		return v
	}
	return value
}
