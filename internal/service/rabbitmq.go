package service

import (
	"bytes"
	"context"
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

func init() {
	register(&spec{
		name: "rabbitmq", env: env.AMQPURL, flag: "--amqp-url", schemes: []string{"amqp", "amqps"}, example: "amqp://guest:guest@127.0.0.1:5672/",
		installed: func() error { _, _, err := rabbitBinaries(); return err },
		launch:    launchRabbit,
		probe:     probeAMQP,
		ready:     90 * time.Second,
	})
}

// rabbitLibDir is where Debian keeps the real rabbitmq-server script; /usr/sbin/rabbitmq-server
// is a wrapper that switches to user rabbitmq, cds to /var/lib/rabbitmq and sends all output to
// /var/log/rabbitmq. A variable so tests can hide it.
var rabbitLibDir = "/usr/lib/rabbitmq/bin"

// rabbitBinaries finds the rabbitmq-server script to run and epmd.
func rabbitBinaries() (server, epmd string, err error) {
	sbin, err := exec.LookPath("rabbitmq-server")
	if err != nil {
		return "", "", notInstalled("rabbitmq", "rabbitmq-server", "rabbitmq-server", "--amqp-url")
	}
	server = sbin
	if b, err := os.ReadFile(sbin); err == nil && bytes.Contains(b, []byte(rabbitLibDir+"/")) {
		server = filepath.Join(rabbitLibDir, "rabbitmq-server")
	}
	if _, err := exec.LookPath("erl"); err != nil {
		return "", "", notInstalled("rabbitmq", "erl (Erlang)", "rabbitmq-server", "--amqp-url")
	}
	epmd, err = exec.LookPath("epmd")
	if err != nil {
		m, _ := filepath.Glob("/usr/lib/erlang/erts-*/bin/epmd")
		if len(m) == 0 {
			return "", "", notInstalled("rabbitmq", "epmd (Erlang)", "rabbitmq-server", "--amqp-url")
		}
		epmd = m[len(m)-1]
	}
	return server, epmd, nil
}

// launchRabbit starts a private RabbitMQ node: its own node name, its own epmd on a private
// port, everything (config, Mnesia, logs, cookie) in the instance directory, every listener on
// 127.0.0.1. Nothing is read from /etc/rabbitmq or written to /var/lib/rabbitmq.
func launchRabbit(_ context.Context, l *launch) (string, error) {
	server, epmd, err := rabbitBinaries()
	if err != nil {
		return "", err
	}
	ports, err := freePorts(2)
	if err != nil {
		return "", err
	}
	l.reserved = append(l.reserved, ports...)
	distPort, epmdPort := ports[0], ports[1]
	node := fmt.Sprintf("iobench-%d@localhost", l.port)

	err = writeFiles(l.dir, l.user, map[string]string{
		"rabbitmq-env.conf": "# iobench sets everything through the environment\n",
		"rabbitmq.conf":     fmt.Sprintf("listeners.tcp.default = 127.0.0.1:%d\n", l.port),
		// Erlang distribution on loopback only.
		"advanced.config": "[{kernel, [{inet_dist_use_interface, {127,0,0,1}}]}].\n",
		"enabled_plugins": "[].\n",
	})
	if err != nil {
		return "", err
	}
	for _, d := range []string{"mnesia", "log"} {
		if err := os.MkdirAll(filepath.Join(l.dir, d), 0o755); err != nil { // kept when restarted
			return "", err
		}
		if err := l.user.chown(filepath.Join(l.dir, d)); err != nil {
			return "", err
		}
	}
	env := append(baseEnv(l.dir),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"ERL_EPMD_PORT="+strconv.Itoa(epmdPort),
	)

	d := l.dir
	env = append(env,
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(d, "rabbitmq-env.conf"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(d, "rabbitmq.conf"),
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(d, "advanced.config"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(d, "enabled_plugins"),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(d, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(d, "log"),
		"RABBITMQ_LOGS=-", // to stdout, which is rabbitmq.log
		"RABBITMQ_PID_FILE="+filepath.Join(d, "rabbitmq.pid"),
		"RABBITMQ_NODENAME="+node,
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(l.port),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(distPort),
	)
	l.run = func() error {
		// Our own epmd first, as our child: otherwise the node starts one with -daemon, outside our
		// session (it would outlive Stop) and listening on all interfaces.
		l.logFile = filepath.Join(l.dir, "epmd.log")
		ep, err := l.spawn(procConfig{
			path: epmd, args: []string{"-address", "127.0.0.1", "-port", strconv.Itoa(epmdPort)},
			env: env, log: "epmd.log", signal: syscall.SIGTERM, grace: 5 * time.Second,
		})
		if err != nil {
			return err
		}
		if !waitUntil(context.Background(), 10*time.Second, func() bool { return ep.exited() || dialOK(epmdPort) }) || ep.exited() {
			return fmt.Errorf("epmd did not listen on 127.0.0.1:%d", epmdPort)
		}

		l.logFile = filepath.Join(l.dir, "rabbitmq.log")
		// The script runs the VM as its child and turns SIGTERM into a clean broker stop.
		if _, err := l.spawn(procConfig{
			path: server, env: env, log: "rabbitmq.log", signal: syscall.SIGTERM, grace: 30 * time.Second,
		}); err != nil {
			return err
		}
		return nil
	}
	if err := l.run(); err != nil {
		return "", err
	}
	return fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", l.port), nil
}

// baseEnv is the environment our servers start with: nothing inherited but PATH, so that no
// RABBITMQ_*, PG* or locale setting of the caller changes them.
func baseEnv(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{"PATH=" + path, "HOME=" + home, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
}

// dialOK reports whether something accepts TCP connections on 127.0.0.1:port.
func dialOK(port int) bool {
	c, err := net.DialTimeout("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// notInstalled is the one-line error of a missing binary; flag, when not empty, is the option
// that gives an external server instead.
func notInstalled(service, binary, pkg, flag string) error {
	msg := fmt.Sprintf("%s: %s not found; install it with scripts/install-services.sh (apt-get install %s)", service, binary, pkg)
	if flag != "" {
		msg += " or pass " + flag
	}
	return &missingError{msg}
}

// ErrNotInstalled is matched (errors.Is) by the errors of Installed and Start when a server's
// binaries are missing.
var ErrNotInstalled = fmt.Errorf("not installed")

// NotInstalled returns an error matching ErrNotInstalled whose message is msg: what a workload
// says when a server its run needs is not on this machine, with the package to install.
func NotInstalled(msg string) error { return &missingError{msg} }

type missingError struct{ msg string }

func (e *missingError) Error() string        { return e.msg }
func (e *missingError) Is(target error) bool { return target == ErrNotInstalled }
