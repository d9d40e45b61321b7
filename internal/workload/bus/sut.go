package bus

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// stopGrace is how long a consumer has to finish its handlers after SIGTERM before SIGKILL.
const stopGrace = 10 * time.Second

// sut is one consumer process: its report stream feeds the tally; its stderr is logged and its
// last lines kept for error messages.
type sut struct {
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{} // closed once the process has exited and both streams are drained
	err     error         // the exit status; read after done
	tail    *tailBuffer
	peakRSS uint64 // highest VmHWM seen, sampled before the process ends
}

// startSUT starts argv with env in a process group of its own, so that a kill reaches any process
// it started, and with a parent-death signal, so that it never outlives iobench.
func startSUT(argv, env []string, t *tally, log *slog.Logger) (*sut, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: cannot start the consumer %q: %v", ErrBadInput, argv[0], err)
	}
	s := &sut{cmd: cmd, started: time.Now(), done: make(chan struct{}), tail: &tailBuffer{max: 5}}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := t.read(stdout); err != nil {
			log.Warn("bus: reading the consumer's reports", "err", err)
		}
		_, _ = io.Copy(io.Discard, stdout)
	})
	wg.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.tail.add(sc.Text())
			log.Info("consumer", "pid", cmd.Process.Pid, "stderr", sc.Text())
		}
		_, _ = io.Copy(io.Discard, stderr)
	})
	go func() {
		// Wait closes the pipes, so it must follow the readers (os/exec's rule).
		wg.Wait()
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// signal sends sig to the consumer's process group.
func (s *sut) signal(sig syscall.Signal) {
	_ = syscall.Kill(-s.cmd.Process.Pid, sig)
}

// sampleMemory records the peak RSS of the consumer's process tree. wait4's ru_maxrss cannot
// serve: after vfork and exec it starts from iobench's own RSS.
func (s *sut) sampleMemory() {
	select {
	case <-s.done:
		return
	default:
	}
	s.peakRSS = max(s.peakRSS, procstat.ReadAll(procstat.Tree(s.cmd.Process.Pid)).PeakRSS)
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *sut) kill() {
	s.sampleMemory()
	s.signal(syscall.SIGKILL)
	<-s.done
}

// stop asks the consumer to finish (SIGTERM) and kills it after stopGrace.
func (s *sut) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.sampleMemory()
	s.signal(syscall.SIGTERM)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
		s.kill()
	}
}

// exitErr describes how the consumer ended, with its last stderr lines.
func (s *sut) exitErr() error {
	msg := "exited"
	if s.err != nil {
		msg = s.err.Error()
	}
	if tail := s.tail.String(); tail != "" {
		msg += ": " + tail
	}
	return errors.New(msg)
}

// usage returns the CPU time of an exited consumer from wait4's rusage, which includes the
// children it waited for, and the peak RSS sampled before it ended.
func (s *sut) usage() (user, sys time.Duration, peakRSS uint64) {
	st := s.cmd.ProcessState
	if st == nil {
		return 0, 0, s.peakRSS
	}
	return st.UserTime(), st.SystemTime(), s.peakRSS
}

// tailBuffer keeps the last max lines written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (b *tailBuffer) add(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.lines) == b.max {
		b.lines = b.lines[1:]
	}
	b.lines = append(b.lines, line)
}

// String returns the last line, which is where a failing consumer says why.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.lines) == 0 {
		return ""
	}
	return b.lines[len(b.lines)-1]
}

// sutEnv builds the consumer's environment: iobench's own without any IOBENCH_ variable (an
// IOBENCH_AMQP_URL left there would point a NATS run's consumer at RabbitMQ), plus DESIGN §5.2's
// variables for this run.
func sutEnv(c *Config, brokerKind string) []string {
	var vars []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, env.Prefix) {
			vars = append(vars, kv)
		}
	}
	if brokerKind == "nats" {
		vars = append(vars, env.NATSURL+"="+c.BrokerURL)
	} else {
		vars = append(vars, env.AMQPURL+"="+c.BrokerURL)
	}
	vars = append(vars,
		env.DatabaseURL+"="+c.DatabaseURL,
		fmt.Sprintf("%s=%d", env.Concurrency, c.Concurrency),
		fmt.Sprintf("%s=%d", env.Prefetch, c.Prefetch),
		env.Mode+"="+c.Mode,
		env.BusProfile+"="+c.Profile,
	)
	return append(vars, c.SUTEnv...)
}

// sutArgv returns the consumer's command line: c.SUT, or this executable's "serve bus".
func sutArgv(c *Config) ([]string, error) {
	if len(c.SUT) > 0 {
		return c.SUT, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the iobench executable to start the consumer: %w", err)
	}
	return []string{exe, "serve", "bus",
		"--mode", c.Mode,
		"--concurrency", fmt.Sprint(c.Concurrency),
		"--prefetch", fmt.Sprint(c.Prefetch),
		"--profile", c.Profile,
	}, nil
}
