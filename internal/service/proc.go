package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// proc is one process iobench started as the leader of a session of its own, with what it takes
// to stop it. Everything the server forks stays in that session (unless it calls setsid itself,
// which none of our servers' helpers do once epmd is started by us), so stopping the session
// stops the server whole. A proc is recorded in the state file, so `services down` can stop it
// from another process.
type proc struct {
	Cmd    string        `json:"cmd"`    // base name of the program, for messages
	PID    int           `json:"pid"`    // process id, also the session id
	Start  uint64        `json:"start"`  // start time in ticks since boot (/proc/PID/stat), against pid reuse
	Signal int           `json:"signal"` // the signal that stops it gracefully
	Grace  time.Duration `json:"grace"`  // how long it may take to stop before it is killed

	done chan struct{} // closed when Wait returned; nil when another process started it
	err  error         // Wait's result, valid once done is closed
}

// procConfig says how to run one server process.
type procConfig struct {
	path   string
	args   []string
	env    []string
	log    string // log file name in the instance directory (stdout and stderr)
	signal syscall.Signal
	grace  time.Duration
}

// spawn starts a process for l in its own session, with stdout and stderr appended to its log.
func (l *launch) spawn(c procConfig) (*proc, error) {
	logPath := filepath.Join(l.dir, c.log)
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log: %w", err)
	}
	defer f.Close()
	cmd := exec.Command(c.path, c.args...)
	cmd.Dir = l.dir
	cmd.Env = c.env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: l.user.credential()}
	if !l.detached {
		// If this process dies without stopping it (a crash, a test timeout), the kernel stops
		// the server: no orphans. Only `services up` instances are meant to outlive us.
		cmd.SysProcAttr.Pdeathsig = c.signal
	}
	if err := startCmd(cmd); err != nil {
		return nil, fmt.Errorf("starting %s: %w", c.path, err)
	}
	p := &proc{Cmd: filepath.Base(c.path), PID: cmd.Process.Pid, Signal: int(c.signal), Grace: c.grace, done: make(chan struct{})}
	if st, err := procstat.ReadStat(p.PID); err == nil {
		p.Start = st.Start
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	l.procs = append(l.procs, p)
	return p, nil
}

// runOne sets l.run to spawning one process and runs it.
func (l *launch) runOne(c procConfig) error {
	l.run = func() error {
		_, err := l.spawn(c)
		return err
	}
	return l.run()
}

// spawnReq asks the spawner thread to start a command.
type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq
)

// startCmd starts cmd from one OS thread that never exits. Why: the parent-death signal fires
// when the thread that forked the child exits, not the process, and Go may end a thread (a
// goroutine that exits while locked to it); a dedicated locked thread makes the signal mean
// "iobench is gone".
func startCmd(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawnCh {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnCh <- spawnReq{cmd: cmd, done: done}
	return <-done
}

// exited reports whether a process started by this process has ended.
func (p *proc) exited() bool {
	if p.done == nil {
		return !p.alive()
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) exitErr() error {
	if p.done == nil {
		return errors.New("gone")
	}
	if p.err == nil {
		return errors.New("exit status 0")
	}
	return p.err
}

// alive reports whether the process still runs (a zombie does not) and is the one we started.
func (p *proc) alive() bool {
	if p.done != nil && p.exited() {
		return false
	}
	st, err := procstat.ReadStat(p.PID)
	if err != nil || st.Zombie() {
		return false
	}
	return p.Start == 0 || st.Start == p.Start
}

// stopProcs stops the sessions of procs, last started first: the graceful signal, up to Grace
// (or ctx's deadline, if sooner) for the leader to exit, then SIGKILL for whatever is left in the
// session.
func stopProcs(ctx context.Context, name string, procs []*proc) error {
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		p := procs[i]
		if p.alive() {
			_ = syscall.Kill(p.PID, syscall.Signal(p.Signal))
			grace := p.Grace
			if d, ok := ctx.Deadline(); ok {
				grace = min(grace, time.Until(d))
			}
			// Not ctx itself: a run interrupted by Ctrl-C stops its servers with a cancelled
			// context, and they still deserve a clean exit (a killed PostgreSQL leaks its
			// System V shared memory segment).
			waitUntil(context.WithoutCancel(ctx), grace, func() bool { return !p.alive() })
		}
		if err := killSession(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// killProcs kills the sessions of procs at once (a start that failed).
func killProcs(procs []*proc) {
	for _, p := range procs {
		_ = killSession(p)
	}
}

// killSession SIGKILLs every live process of p's session and waits until they are gone.
func killSession(p *proc) error {
	members := func() []int {
		var out []int
		for _, m := range sessionMembers(p.PID) {
			if m.PID == p.PID && p.Start != 0 && m.Start != p.Start {
				// The leader's pid now names another process: Linux does not reuse a pid while a
				// session still uses it, so nothing of ours is left.
				return nil
			}
			out = append(out, m.PID)
		}
		return out
	}
	left := members()
	if len(left) == 0 {
		return waitReaped(p)
	}
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if !waitUntil(context.Background(), 10*time.Second, func() bool { return len(members()) == 0 }) {
		return fmt.Errorf("processes %v of %s survived SIGKILL", members(), p.Cmd)
	}
	return waitReaped(p)
}

// waitReaped waits for our own child's Wait, so that no zombie of ours is left either.
func waitReaped(p *proc) error {
	if p.done == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%s (pid %d) not reaped", p.Cmd, p.PID)
	}
}

// waitUntil polls cond every 20 ms until it holds (true), d passes or ctx ends (false).
func waitUntil(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return cond()
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// sessionMembers returns the live (not zombie) processes of session sid.
func sessionMembers(sid int) []procstat.Stat {
	return procstat.Find(func(s procstat.Stat) bool { return s.Session == sid })
}
