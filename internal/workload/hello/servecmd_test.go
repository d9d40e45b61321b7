package hello

import (
	"net"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestServeBadInput: a server that does not exist, HTTP/2 asked of the raw server, and an
// address already taken are each one line and exit 2, before anything is served.
func TestServeBadInput(t *testing.T) {
	t.Setenv(env.Listen, "")
	t.Setenv(env.Variant, "")
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown server", []string{"--server", "nginx"}, `--server "nginx": use raw or net-http`},
		{"http2 on raw", []string{"--server", ServerRaw, "--http2"}, "drop --server raw"},
		{"address taken", []string{"--listen", addr}, "listen on " + addr + ": address already in use; stop the process using that port (see: ss -ltnp | grep :" + port + ")"},
		{"not an address", []string{"--listen", "nowhere"}, "listen on nowhere: "},
		{"max-rate zero", []string{"--max-rate", "0"}, "--max-rate 0: give a positive rate"},
		{"max-rate on net-http", []string{"--server", ServerNetHTTP, "--max-rate", "100"}, "--max-rate runs on the raw server over HTTP/1.1"},
		{"argument", []string{"extra"}, `unknown command "extra"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := workloadtest.Run(append([]string{"serve", Name}, tt.args...)...)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line containing %q", code, stderr, tt.want)
			}
		})
	}
}

// TestServeListensOnEnv: with no --listen, the address comes from $IOBENCH_LISTEN (a taken one
// here, so that the command ends at once and says which it tried).
func TestServeListensOnEnv(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	t.Setenv(env.Listen, taken.Addr().String())
	code, _, stderr := workloadtest.Run("serve", Name)
	if code != 2 || !strings.Contains(stderr, "listen on "+taken.Addr().String()+": address already in use") {
		t.Fatalf("exit %d, stderr %q: want the address of %s", code, stderr, env.Listen)
	}
}
