package sut

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/service"
)

// recordsDir is the folder of the state directory that holds one record per running process
// group.
const recordsDir = "sut"

// record is what Reap needs to find a process group that a killed iobench left running: the
// group, its leader's start time (so a reused pid is not mistaken for it), the iobench that
// owns it, and the descendants seen outside the group, which a signal to the group misses.
type record struct {
	PGID       int      `json:"pgid"`
	Start      uint64   `json:"start"`
	Owner      int      `json:"owner"`
	OwnerStart uint64   `json:"owner_start"`
	Name       string   `json:"name"`
	Command    []string `json:"command"`
	Escaped    []procID `json:"escaped,omitempty"`

	mu   sync.Mutex
	path string // "" when the record could not be written
	log  *slog.Logger
}

// newRecord writes the record of p's process group. A failure is logged, not returned: the run
// does not need the record, only a later clean-up after a crash does.
func newRecord(p *Process, stateDir string, log *slog.Logger) *record {
	r := &record{PGID: p.PID(), Owner: os.Getpid(), Name: p.opts.Name, Command: p.opts.Argv, log: log}
	if s, err := procstat.ReadStat(r.PGID); err == nil {
		r.Start = s.Start
	}
	if s, err := procstat.ReadStat(r.Owner); err == nil {
		r.OwnerStart = s.Start
	}
	if stateDir == "" {
		stateDir = service.DefaultStateDir()
	}
	dir := filepath.Join(stateDir, recordsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Warn("sut: cannot record the process group; if iobench is killed, its processes may survive", "err", err)
		return r
	}
	r.path = filepath.Join(dir, fmt.Sprintf("%d-%d.json", r.PGID, r.Start))
	r.write()
	return r
}

// update records the processes seen outside the group.
func (r *record) update(escaped []procID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Escaped = escaped
	r.writeLocked()
}

func (r *record) write() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writeLocked()
}

// writeLocked replaces the record file atomically (a temporary file renamed over it).
func (r *record) writeLocked() {
	if r.path == "" {
		return
	}
	b, _ := json.Marshal(r)
	tmp := r.path + ".tmp"
	err := os.WriteFile(tmp, b, 0o644)
	if err == nil {
		err = os.Rename(tmp, r.path)
	}
	if err != nil {
		r.log.Warn("sut: cannot record the process group; if iobench is killed, its processes may survive", "err", err)
		r.path = ""
	}
}

func (r *record) leaderStart() uint64 { return r.Start }

// remove deletes the record once the group is gone.
func (r *record) remove() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.path != "" {
		_ = os.Remove(r.path)
		r.path = ""
	}
}

// Reap stops what an iobench that was killed left running: for every record in stateDir ("" is
// iobench's state directory) whose owner is gone, it SIGKILLs what is left of the process group
// and of the descendants recorded with it, removes the record, and writes one line to w naming
// what it stopped (nothing when nothing was left). Every iobench command calls it first. It
// returns how many processes it stopped.
func Reap(stateDir string, w io.Writer) int {
	if stateDir == "" {
		stateDir = service.DefaultStateDir()
	}
	dir := filepath.Join(stateDir, recordsDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0 // no record was ever written
	}
	var total int
	var what []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		n, name, pgid := reapOne(filepath.Join(dir, e.Name()))
		if n > 0 {
			total += n
			what = append(what, fmt.Sprintf("%s of %s (pgid %d)", plural(n, "process", "processes"), name, pgid))
		}
	}
	if total > 0 {
		fmt.Fprintf(w, "iobench: stopped %s left by an iobench that was killed\n", strings.Join(what, ", "))
	}
	return total
}

// reapOne kills what is left of one record's group if its owner is gone. Two iobench commands
// starting at once both see the record; the one that renames it away first does the work.
func reapOne(path string) (n int, name string, pgid int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, "", 0
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		_ = os.Remove(path) // not a record of ours, or cut short: nothing to act on
		return 0, "", 0
	}
	if procstat.Alive(r.Owner, r.OwnerStart) {
		return 0, "", 0
	}
	claimed := path + fmt.Sprintf(".reaping-%d", os.Getpid())
	if os.Rename(path, claimed) != nil {
		return 0, "", 0
	}
	defer os.Remove(claimed)
	return killTree(r.PGID, r.Start, r.Escaped), r.Name, r.PGID
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
