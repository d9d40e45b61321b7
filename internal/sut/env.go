package sut

import (
	"net"
	"os"
	"strings"

	"github.com/iobench/iobench/internal/env"
)

// Environ returns iobench's environment without any IOBENCH_* variable (a SUT sees only those its
// run sets: an IOBENCH_AMQP_URL left over would point a NATS run's consumer at RabbitMQ), with
// each "KEY=value" of set added or replacing the variable of that name.
func Environ(set ...string) []string {
	var vars []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, env.Prefix) {
			vars = append(vars, kv)
		}
	}
	for _, kv := range set {
		vars = SetEnv(vars, kv)
	}
	return vars
}

// SetEnv sets "KEY=value" in vars, replacing the variable of that name if there is one.
func SetEnv(vars []string, kv string) []string {
	k, _, _ := strings.Cut(kv, "=")
	for i, old := range vars {
		if strings.HasPrefix(old, k+"=") {
			vars[i] = kv
			return vars
		}
	}
	return append(vars, kv)
}

// FreeAddr returns a 127.0.0.1 address with a port that was free a moment ago, for a SUT to
// listen on.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
