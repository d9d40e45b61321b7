package impl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/procstat"
)

// StartOptions configures Start.
type StartOptions struct {
	// Variant is the manifest variant to run; empty runs the first. The impl gets its name and
	// mode (IOBENCH_VARIANT, IOBENCH_MODE) and its env.
	Variant string
	// Env holds the IOBENCH_* values of this run (Env* constants and workload-specific ones,
	// e.g. IOBENCH_QUEUE); they override the manifest's start.env and the variant's env.
	Env map[string]string
	// OnLine, when set, receives every line the impl writes (stdout and stderr), in order per
	// stream, from reader goroutines; it must be quick.
	OnLine func(line string)
	// LogDir holds the log file; empty means the installation's logs/ folder.
	LogDir string
}

// Process is a running impl. Its methods are safe for concurrent use.
type Process struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	logPath string
	stopSig syscall.Signal
	stopTO  time.Duration

	out  *lines
	done chan struct{} // closed when the process has exited
	read sync.WaitGroup
	err  error // from Wait, once done

	mu      sync.Mutex
	hwm     map[int]uint64 // peak RSS seen per process of the tree
	cpu     time.Duration  // tree CPU at the last sample
	base    time.Duration  // tree CPU at the last Mark
	stopped chan struct{}
	stop    sync.Once
}

// Start runs the installed impl with the §5.2 environment and waits until it is ready (a log
// line matching ready.log, or a TCP connection to IOBENCH_LISTEN for ready.tcp: listen). Its
// output goes to a log file (LogPath) and to opts.OnLine. On failure the process is stopped and
// the error ends with the impl's last lines.
func (inst *Installation) Start(ctx context.Context, opts StartOptions) (*Process, error) {
	m := inst.Manifest
	v, ok := m.Variant(opts.Variant)
	if !ok {
		return nil, m.UnknownVariant(opts.Variant)
	}
	argv := inst.Command()
	logDir := opts.LogDir
	if logDir == "" {
		logDir = filepath.Join(inst.Dir, "logs")
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("impl %s: cannot create %s: %w", m.Name, logDir, unwrapPath(err))
	}
	logFile, err := os.CreateTemp(logDir, time.Now().Format("20060102-150405-*.log"))
	if err != nil {
		return nil, fmt.Errorf("impl %s: cannot create a log in %s: %w", m.Name, logDir, unwrapPath(err))
	}
	var readyRE *regexp.Regexp
	if m.Ready.Log != "" {
		readyRE = regexp.MustCompile(m.Ready.Log) // validated by Load
	}
	readyCh := make(chan struct{})
	var readyOnce sync.Once
	sig := syscall.SIGTERM
	if s, ok := signals[strings.TrimPrefix(m.Stop.Signal, "SIG")]; ok {
		sig = s
	}
	p := &Process{
		name: m.Name, logPath: logFile.Name(), stopSig: sig, stopTO: m.StopTimeout(),
		out: &lines{max: 20, file: logFile}, done: make(chan struct{}), hwm: map[int]uint64{},
		stopped: make(chan struct{}),
	}
	p.out.onLine = func(l string) {
		if readyRE != nil && readyRE.MatchString(l) {
			readyOnce.Do(func() { close(readyCh) })
		}
		if opts.OnLine != nil {
			opts.OnLine(l)
		}
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = m.Dir
	cmd.Env = inst.environ(v, opts.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	outR, outW, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		logFile.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		logFile.Close()
		return nil, fmt.Errorf("impl %s: cannot start %s: %w; check start.command in %s", m.Name, argv[0], err, ManifestFile)
	}
	p.cmd, p.stdin = cmd, stdin
	p.read.Add(2)
	go p.out.consume(outR, &p.read)
	go p.out.consume(errR, &p.read)
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	go p.sample()

	var dial string
	if m.Ready.TCP == "listen" {
		dial = opts.Env[env.Listen]
		if dial == "" {
			p.Stop()
			return nil, fmt.Errorf("impl %s: ready.tcp is listen but no %s was given", m.Name, env.Listen)
		}
	}
	if err := p.waitReady(ctx, readyCh, dial, m.ReadyTimeout()); err != nil {
		p.Stop()
		return nil, err
	}
	p.Mark()
	return p, nil
}

var signals = map[string]syscall.Signal{"INT": syscall.SIGINT, "KILL": syscall.SIGKILL, "QUIT": syscall.SIGQUIT, "TERM": syscall.SIGTERM}

// environ is the impl's environment: ours without IOBENCH_*, what the installation needs
// (virtualenv, NODE_PATH, unbuffered Python output), the manifest's start.env, the variant's
// name, mode and env, and the run's env.
func (inst *Installation) environ(v Variant, run map[string]string) []string {
	var vars []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, env.Prefix) || k == "VIRTUAL_ENV" || k == "PYTHONHOME" || k == "NODE_PATH" {
			continue
		}
		vars = append(vars, kv)
	}
	if inst.Python != "" {
		venv := filepath.Dir(filepath.Dir(inst.Python))
		vars = setEnv(vars, "VIRTUAL_ENV", venv)
		vars = setEnv(vars, "PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if inst.Manifest.Language == "python" {
		vars = setEnv(vars, "PYTHONUNBUFFERED", "1") // lines reach iobench as they are printed
	}
	if inst.NodePath != "" {
		vars = setEnv(vars, "NODE_PATH", inst.NodePath)
	}
	for k, val := range inst.VariantEnv(v) {
		vars = setEnv(vars, k, val)
	}
	for k, val := range run {
		vars = setEnv(vars, k, val)
	}
	return vars
}

// VariantEnv returns what the manifest gives variant v to run with: start.env, then the
// variant's name and mode (IOBENCH_VARIANT, IOBENCH_MODE), then its env, each overriding the
// one before.
func (inst *Installation) VariantEnv(v Variant) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{inst.Manifest.Start.Env, {env.Variant: v.Name, env.Mode: v.Mode}, v.Env} {
		for k, val := range m {
			out[k] = val
		}
	}
	return out
}

func setEnv(env []string, k, v string) []string {
	for i, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			env[i] = k + "=" + v
			return env
		}
	}
	return append(env, k+"="+v)
}

func (p *Process) waitReady(ctx context.Context, readyCh <-chan struct{}, dial string, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond) // polling a TCP port, not synchronizing
	defer tick.Stop()
	for {
		if dial != "" {
			if c, err := net.DialTimeout("tcp", dial, 200*time.Millisecond); err == nil {
				c.Close()
				return nil
			}
		}
		select {
		case <-readyCh:
			return nil
		case <-p.done:
			p.waitOutput()
			return fmt.Errorf("impl %s exited before it was ready (%v): %s; log %s", p.name, p.err, p.out.last(), p.logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("impl %s not ready within %v: %s; log %s", p.name, timeout, p.out.last(), p.logPath)
		case <-tick.C:
		}
	}
}

// PID returns the impl's process id (the leader of its process group).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// LogPath returns the file holding everything the impl printed.
func (p *Process) LogPath() string { return p.logPath }

// Tail returns the impl's last lines, joined on one line.
func (p *Process) Tail() string { return p.out.last() }

// Send writes one line to the impl's standard input.
func (p *Process) Send(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	if err != nil {
		return fmt.Errorf("impl %s: cannot write to its standard input: %w", p.name, err)
	}
	return nil
}

// Done is closed when the impl's main process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits until the impl exits and its output has been read, or ctx ends. It returns the
// exit error, with the last lines of output, when the impl failed.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	p.waitOutput()
	if p.err != nil {
		return fmt.Errorf("impl %s failed (%v): %s; log %s", p.name, p.err, p.out.last(), p.logPath)
	}
	return nil
}

// waitOutput waits for the output readers, at most 2 s (a grandchild may hold the pipes open).
func (p *Process) waitOutput() {
	ch := make(chan struct{})
	go func() { p.read.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
	}
}

// Stop sends stop.signal to the impl's process group, then SIGKILL after stop.timeout, and
// waits until the main process is gone; whatever else is left in the group is killed. It is
// safe to call more than once.
func (p *Process) Stop() error {
	p.stop.Do(func() {
		defer close(p.stopped)
		pgid := -p.cmd.Process.Pid
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(pgid, p.stopSig)
			t := time.NewTimer(p.stopTO)
			select {
			case <-p.done:
			case <-t.C:
				_ = syscall.Kill(pgid, syscall.SIGKILL)
				<-p.done
			}
			t.Stop()
		}
		_ = syscall.Kill(pgid, syscall.SIGKILL) // anything the impl left in its group
		_ = p.stdin.Close()
		p.waitOutput()
		p.out.close()
	})
	<-p.stopped
	return nil
}

// sample follows the process tree until it exits, keeping each process's peak RSS and the
// tree's CPU (each live process's own and reaped children's times, so a child that has exited
// still counts through its parent).
func (p *Process) sample() {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		p.takeSample()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
}

func (p *Process) takeSample() {
	var cpu time.Duration
	hwm := map[int]uint64{}
	for _, pid := range procstat.Tree(p.cmd.Process.Pid) {
		c, err := treeCPU(pid)
		if err != nil {
			continue
		}
		cpu += c
		if u, err := procstat.Read(pid); err == nil {
			hwm[pid] = u.PeakRSS
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		return // exited meanwhile: the numbers may be partial; rusage from Wait is exact
	default:
	}
	if cpu > p.cpu {
		p.cpu = cpu
	}
	for pid, v := range hwm {
		if v > p.hwm[pid] {
			p.hwm[pid] = v
		}
	}
}

// Mark restarts the CPU accounting from now (e.g. when measurement begins).
func (p *Process) Mark() {
	p.takeSample()
	p.mu.Lock()
	p.base = p.cpu
	p.mu.Unlock()
}

// Usage returns the CPU the impl's process tree used since Start became ready (or the last
// Mark), and its peak RSS: the sum of each of its processes' peaks. After the impl has exited
// the CPU comes from the kernel's accounting of the whole tree, which is exact.
func (p *Process) Usage() procstat.Usage {
	select {
	case <-p.done:
	default:
		p.takeSample()
	}
	exited := false
	select {
	case <-p.done:
		exited = true // ProcessState is set and no longer written
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var u procstat.Usage
	cpu := p.cpu
	var user, sys time.Duration
	if exited && p.cmd.ProcessState != nil { // only once exited is ProcessState written and safe to read
		if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			user, sys = time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
			cpu = user + sys
			u.PeakRSS = uint64(ru.Maxrss) * 1024
		}
	}
	for _, v := range p.hwm {
		u.RSS += v
	}
	u.PeakRSS = max(u.PeakRSS, u.RSS)
	u.RSS = 0
	d := cpu - p.base
	if user+sys > 0 {
		// Split the measured CPU in the kernel's user/system proportion.
		u.User = time.Duration(float64(d) * float64(user) / float64(user+sys))
		u.System = d - u.User
	} else {
		u.User = d
	}
	return u
}

// treeCPU returns a process's user+system time plus that of its reaped children.
func treeCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	end := strings.LastIndexByte(string(b), ')')
	if end < 0 {
		return 0, errors.New("malformed stat")
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 15 {
		return 0, errors.New("short stat")
	}
	var total uint64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		var n uint64
		fmt.Sscan(f[i], &n)
		total += n
	}
	return time.Duration(total) * time.Second / 100, nil // USER_HZ
}

// lines writes an impl's output to its log and keeps the last few lines for error messages.
type lines struct {
	mu     sync.Mutex
	file   *os.File
	buf    []string
	max    int
	onLine func(string)
}

func (l *lines) consume(r io.ReadCloser, wg *sync.WaitGroup) {
	defer wg.Done()
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		l.mu.Lock()
		if l.file != nil {
			fmt.Fprintln(l.file, line)
		}
		l.buf = append(l.buf, line)
		if len(l.buf) > l.max {
			l.buf = l.buf[len(l.buf)-l.max:]
		}
		l.mu.Unlock()
		if l.onLine != nil {
			l.onLine(line)
		}
	}
}

func (l *lines) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var keep []string
	for _, s := range l.buf {
		if s = strings.TrimSpace(s); s != "" {
			keep = append(keep, s)
		}
	}
	if len(keep) > 5 {
		keep = keep[len(keep)-5:]
	}
	if len(keep) == 0 {
		return "(no output)"
	}
	return strings.Join(keep, " | ")
}

func (l *lines) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
}
