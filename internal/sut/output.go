package sut

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
)

// tailLines is how many lines of output an error message shows.
const tailLines = 5

// output takes a process's lines of output: it keeps the last few for error messages, writes
// them to the log file, hands them to OnLine and watches for the ready line.
type output struct {
	onLine  func(string)
	readyRE *regexp.Regexp
	matched chan struct{} // closed at the first line matching readyRE
	match   sync.Once

	mu   sync.Mutex
	file *os.File
	name string // the log file's path
	last []string
}

// newOutput creates the log file in opts.LogDir, if given.
func newOutput(opts Options) (*output, error) {
	o := &output{onLine: opts.OnLine, readyRE: opts.Ready.Log, matched: make(chan struct{})}
	if opts.LogDir == "" {
		return o, nil
	}
	if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: cannot create the log folder: %w; set a writable state directory (IOBENCH_STATE_DIR)", opts.Name, err)
	}
	f, err := os.CreateTemp(opts.LogDir, time.Now().Format("20060102-150405-*.log"))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot create a log file: %w; set a writable state directory (IOBENCH_STATE_DIR)", opts.Name, err)
	}
	o.file, o.name = f, f.Name()
	return o, nil
}

// read takes the lines of r until EOF. A line longer than 64 KiB is cut there, so that no line
// can stop the reading (and with it the process, once the pipe is full).
func (o *output) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 {
			o.add(strings.TrimRight(string(b), "\r\n"))
		}
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n') // the rest of an over-long line
		}
		if err != nil {
			return
		}
	}
}

// add takes one line of output.
func (o *output) add(line string) {
	o.mu.Lock()
	if o.file != nil {
		fmt.Fprintln(o.file, line)
	}
	if s := strings.TrimSpace(line); s != "" {
		if len(o.last) == tailLines {
			o.last = o.last[1:]
		}
		o.last = append(o.last, s)
	}
	o.mu.Unlock()
	if o.readyRE != nil && o.readyRE.MatchString(line) {
		o.match.Do(func() { close(o.matched) })
	}
	if o.onLine != nil {
		o.onLine(line)
	}
}

// tail returns the last non-empty lines, joined on one line.
func (o *output) tail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.last) == 0 {
		return "(no output)"
	}
	return strings.Join(o.last, " | ")
}

func (o *output) path() string { return o.name }

// close closes the log file; later lines are only kept for the tail.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
}
