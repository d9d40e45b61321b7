package sut

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/cpuset"
	"github.com/iobench/iobench/internal/procstat"
)

// Defaults of Options and Ready.
const (
	DefaultReadyTimeout = 30 * time.Second
	DefaultStopGrace    = 5 * time.Second
	samplePeriod        = 200 * time.Millisecond // how often the process tree is measured
)

// StreamFunc reads a process's standard output until EOF, in a goroutine of its own, and calls
// ready when the output says the process is ready (the bus report stream's "ready" line); it may
// call ready any number of times.
type StreamFunc func(stdout io.Reader, ready func()) error

// Ready says when a started process is ready. Every condition given must hold; with none, the
// process is ready as soon as it has started.
type Ready struct {
	TCP     string         // a host:port that accepts TCP connections
	Log     *regexp.Regexp // a line of output (stderr, and stdout unless Options.Stream reads it)
	Stream  bool           // Options.Stream has called its ready function
	Timeout time.Duration  // how long to wait; 0 means DefaultReadyTimeout
}

// Options says what Start runs and how.
type Options struct {
	Name string   // names the process in errors and in Reap's line; "" is the command's base name
	Argv []string // the command and its arguments
	Dir  string   // the working directory; "" is iobench's
	Env  []string // the whole environment (see Environ); nil is iobench's own
	// Ready says when the process is ready; Start returns then.
	Ready Ready
	// Stream, when set, reads the process's standard output instead of OnLine, the tail and the
	// log file (the bus report stream). An error it returns joins the tail.
	Stream StreamFunc
	// OnLine receives every line of output (stderr, and stdout without Stream), in order per
	// stream, from reader goroutines; it must be quick.
	OnLine func(line string)
	// LogDir, when set, gets a new log file holding every line of output (LogPath).
	LogDir     string
	StopSignal syscall.Signal // what Stop sends first; 0 means SIGTERM
	StopGrace  time.Duration  // how long Stop waits before SIGKILL; 0 means DefaultStopGrace
	// StateDir holds the records Reap reads; "" is iobench's state directory.
	StateDir string
	// Log receives diagnostics (a record that could not be written); nil discards them.
	Log *slog.Logger
	// CPUs, when set, pins the process and all it starts to these CPUs.
	CPUs cpuset.Set
}

// Process is a started system under test: a process group with the command as its leader. Its
// methods are safe for concurrent use.
type Process struct {
	opts  Options
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *output
	meter *procstat.Meter
	rec   *record // nil when it could not be written

	streamReady chan struct{} // closed when Stream first calls ready
	done        chan struct{} // closed when the leader has exited
	drained     chan struct{} // closed when stdout and stderr have reached EOF
	err         error         // the leader's exit status, read after done

	mu      sync.Mutex
	escaped map[procID]bool // descendants seen in another process group

	stopOnce sync.Once
	stopped  chan struct{}
}

// Start runs the command in a process group of its own, with a parent-death signal so that it
// never outlives iobench, records the group for Reap, and waits until it is ready (opts.Ready).
// On failure the process is stopped and the error (ErrExited or ErrNotReady, ending with the last
// lines of output; ErrStart; or ctx's) says why.
func Start(ctx context.Context, opts Options) (*Process, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	p := &Process{
		opts: opts, streamReady: make(chan struct{}), done: make(chan struct{}),
		drained: make(chan struct{}), escaped: map[procID]bool{}, stopped: make(chan struct{}),
	}
	var err error
	if p.out, err = newOutput(opts); err != nil {
		return nil, err
	}
	if err := p.start(); err != nil {
		p.out.close()
		return nil, err
	}
	p.rec = newRecord(p, opts.StateDir, opts.Log)
	go p.sample()
	if err := p.waitReady(ctx); err != nil {
		_ = p.Stop()
		return nil, err
	}
	p.Mark()
	return p, nil
}

// fill checks the options and sets the defaults.
func (o *Options) fill() error {
	if len(o.Argv) == 0 || o.Argv[0] == "" {
		return errors.New("sut: no command to start; give Options.Argv")
	}
	if o.Ready.Stream && o.Stream == nil {
		return fmt.Errorf("sut: %s: ready on the report stream needs Options.Stream to read it", o.Argv[0])
	}
	if o.Name == "" {
		o.Name = filepath.Base(o.Argv[0])
	}
	if o.Ready.Timeout <= 0 {
		o.Ready.Timeout = DefaultReadyTimeout
	}
	if o.StopSignal == 0 {
		o.StopSignal = syscall.SIGTERM
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return nil
}

// start starts the command with its output on two pipes read by goroutines of their own. The
// pipes are os.Pipes rather than exec's, so that Wait does not close them under the readers.
func (p *Process) start() error {
	o := p.opts
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%s: cannot create a pipe: %w", o.Name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("%s: cannot create a pipe: %w", o.Name, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cpuset.Start(o.CPUs, cmd.Start)
	}
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return &startError{kind: ErrStart, msg: fmt.Sprintf("%s: cannot start %s: %v", o.Name, o.Argv[0], err), err: err}
	}
	p.cmd, p.stdin = cmd, stdin
	p.meter = procstat.NewMeter(cmd.Process.Pid)
	var readers sync.WaitGroup
	readers.Go(func() { p.readStdout(outR) })
	readers.Go(func() { p.out.read(errR); errR.Close() })
	go func() { readers.Wait(); close(p.drained) }()
	go func() {
		p.err = cmd.Wait()
		p.meter.Exited(cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime())
		close(p.done)
	}()
	return nil
}

// readStdout hands stdout to Stream, or reads it as lines of output.
func (p *Process) readStdout(r *os.File) {
	defer r.Close()
	if p.opts.Stream == nil {
		p.out.read(r)
		return
	}
	var once sync.Once
	ready := func() { once.Do(func() { close(p.streamReady) }) }
	if err := p.opts.Stream(r, ready); err != nil {
		p.out.add("reading the output: " + err.Error())
	}
	_, _ = io.Copy(io.Discard, r)
}

// PID returns the leader's process id, which is also the process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// LogPath returns the file holding every line of output, or "" without Options.LogDir.
func (p *Process) LogPath() string { return p.out.path() }

// Tail returns the last lines of output, on one line.
func (p *Process) Tail() string { return p.out.tail() }

// Send writes one line to the process's standard input (e.g. a start signal).
func (p *Process) Send(line string) error {
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return fmt.Errorf("%s: cannot write to its standard input: %w", p.opts.Name, err)
	}
	return nil
}

// Done is closed when the leader has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits until the leader exits and its output has been read, or ctx ends. It returns the
// exit status with the last lines of output when the process failed. Stop must still be called,
// for what the process may have left behind.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	p.waitDrained()
	if p.err != nil {
		return fmt.Errorf("%s failed (%v): %s", p.opts.Name, p.err, p.describe())
	}
	return nil
}

// waitDrained waits for the output readers, at most 2 s: a descendant that left the tree
// unseen may hold the pipes open.
func (p *Process) waitDrained() {
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-p.drained:
	case <-t.C:
	}
}

// describe is the end of an error message: the last lines of output and the log file.
func (p *Process) describe() string {
	if path := p.out.path(); path != "" {
		return p.out.tail() + "; log " + path
	}
	return p.out.tail()
}

// Mark restarts the CPU account from now (Start calls it once the process is ready).
func (p *Process) Mark() {
	p.track(p.meter.Sample())
	p.meter.Mark()
}

// Usage returns the CPU time of the whole process tree since it became ready (or the last Mark)
// and its peak memory, as procstat.Meter measures them: the sum of the processes' proportional
// set sizes, so memory shared by pre-forked workers counts once.
func (p *Process) Usage() procstat.Usage {
	select {
	case <-p.done:
	default:
		p.track(p.meter.Sample())
	}
	return p.meter.Usage()
}

// sample measures the process tree every samplePeriod until the leader exits, and keeps note
// of descendants that leave the process group.
func (p *Process) sample() {
	t := time.NewTicker(samplePeriod)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.track(p.meter.Sample())
		}
	}
}
