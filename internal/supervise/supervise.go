// Package supervise starts a system under test as a child process, waits until it is ready, keeps
// its output for error messages, measures its cost (whole process tree) and stops it, leaving no
// process behind.
package supervise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// Spec says how to start and probe a child.
type Spec struct {
	Name      string
	Path      string
	Args      []string
	Env       []string      // added to the parent's environment
	ReadyAddr string        // host:port that accepts TCP when the child is ready
	Timeout   time.Duration // to become ready; 0 = 15s
}

// Process is a running child.
type Process struct {
	spec  Spec
	cmd   *exec.Cmd
	out   *tail
	done  chan struct{}
	err   error
	start procstat.Usage
	t0    time.Time
}

// Start runs the child in its own process group and waits until it is ready. On failure the child
// is stopped and the error carries the end of its output.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if spec.Timeout == 0 {
		spec.Timeout = 15 * time.Second
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = append(os.Environ(), spec.Env...)
	out := &tail{max: 8192}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: cannot start %s: %w", spec.Name, spec.Path, err)
	}
	p := &Process{spec: spec, cmd: cmd, out: out, done: make(chan struct{}), t0: time.Now()}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	if err := p.waitReady(ctx); err != nil {
		p.Stop()
		return nil, err
	}
	p.start = procstat.ReadAll(procstat.Tree(cmd.Process.Pid))
	return p, nil
}

func (p *Process) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(p.spec.Timeout)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v): %s", p.spec.Name, p.err, p.out.last())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if p.spec.ReadyAddr == "" {
			return nil
		}
		c, err := net.DialTimeout("tcp", p.spec.ReadyAddr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections on %s within %v: %s", p.spec.Name, p.spec.ReadyAddr, p.spec.Timeout, p.out.last())
		}
		time.Sleep(20 * time.Millisecond) // polling for readiness, not synchronizing
	}
}

// PID returns the child's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited reports whether the child has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Usage returns what the child's process tree has cost since it became ready.
func (p *Process) Usage() procstat.Usage {
	now := procstat.ReadAll(procstat.Tree(p.PID()))
	return now.Sub(p.start)
}

// Output returns the last lines the child wrote.
func (p *Process) Output() string { return p.out.last() }

// Stop sends SIGTERM to the child's group, then SIGKILL after 5 s, and waits for it.
func (p *Process) Stop() error {
	if p.Exited() {
		return nil
	}
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-p.done
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL) // anything the child left in its group
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		return p.err
	}
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

// last returns the last lines written, on one line.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, nil))), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	s := strings.Join(lines, " | ")
	if s == "" {
		return "(no output)"
	}
	return s
}

// FreeAddr returns a 127.0.0.1 address with a port that was free a moment ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
