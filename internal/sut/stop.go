package sut

import (
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// procID names one process across PID reuse: its pid and its start time.
type procID struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// track keeps note of the processes of a sample that are in another process group than the
// leader's (a worker that called setsid), since a signal to the group does not reach them, and
// records them for Reap.
func (p *Process) track(procs []procstat.Stat) {
	p.mu.Lock()
	defer p.mu.Unlock()
	added := false
	for _, s := range procs {
		id := procID{s.PID, s.Start}
		if s.PGID != p.PID() && !s.Zombie() && !p.escaped[id] {
			p.escaped[id] = true
			added = true
		}
	}
	if added {
		p.rec.update(slices.Collect(maps.Keys(p.escaped)))
	}
}

// known returns the processes seen outside the process group.
func (p *Process) known() []procID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Collect(maps.Keys(p.escaped))
}

// Stop sends Options.StopSignal to the process group and to the descendants that left it, waits
// up to Options.StopGrace for the leader to exit, then SIGKILLs whatever is left of the group and
// of every descendant, however far it went (a new session, a new group), and waits until all are
// gone. It is safe to call more than once and returns nil.
func (p *Process) Stop() error {
	p.stop(p.opts.StopSignal, p.opts.StopGrace)
	return nil
}

// Kill is Stop without the grace: SIGKILL at once (a fault injected on purpose).
func (p *Process) Kill() { p.stop(syscall.SIGKILL, 0) }

func (p *Process) stop(sig syscall.Signal, grace time.Duration) {
	p.stopOnce.Do(func() {
		defer close(p.stopped)
		select {
		case <-p.done:
		default:
			p.track(p.meter.Sample()) // the last look at its memory, and at the tree while it is whole
			if sig != syscall.SIGKILL {
				p.signal(sig)
				t := time.NewTimer(grace)
				select {
				case <-p.done:
				case <-t.C:
				}
				t.Stop()
			}
		}
		killTree(p.PID(), p.rec.leaderStart(), p.known())
		<-p.done
		_ = p.stdin.Close()
		p.waitDrained()
		p.out.close()
		p.rec.remove()
	})
	<-p.stopped
}

// signal sends sig to the process group and to the descendants seen outside it.
func (p *Process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.PID(), sig)
	for _, id := range p.known() {
		if procstat.Alive(id.PID, id.Start) {
			_ = syscall.Kill(id.PID, sig)
		}
	}
}

// killTree SIGKILLs every live member of process group pgid (whose leader started at start),
// the known processes that left it, and all their descendants, and waits until they are gone.
// It stops them first (SIGSTOP), round after round until no new one appears, so that none can
// fork a child the kill would miss. It returns how many processes it killed.
func killTree(pgid int, start uint64, known []procID) int {
	victims := map[procID]bool{}
	for range 10 {
		fresh := 0
		for _, s := range survivors(pgid, start, known) {
			if id := (procID{s.PID, s.Start}); !victims[id] {
				victims[id] = true
				fresh++
				_ = syscall.Kill(s.PID, syscall.SIGSTOP)
			}
		}
		if fresh == 0 {
			break
		}
	}
	for id := range victims {
		_ = syscall.Kill(id.PID, syscall.SIGKILL)
	}
	waitGone(victims, 5*time.Second)
	return len(victims)
}

// survivors returns the live processes of group pgid, the known processes, and all their
// descendants. The group is skipped when a process that is not its leader now has pid pgid:
// Linux reuses a pid only once no group has it for id, so the group is gone.
func survivors(pgid int, start uint64, known []procID) []procstat.Stat {
	var roots []procstat.Stat
	if leader, err := procstat.ReadStat(pgid); err != nil || leader.Start == start {
		roots = procstat.Group(pgid)
	}
	for _, id := range known {
		if s, err := procstat.ReadStat(id.PID); err == nil && s.Start == id.Start && !s.Zombie() {
			roots = append(roots, s)
		}
	}
	var out []procstat.Stat
	seen := map[int]bool{}
	for _, r := range roots {
		for _, pid := range procstat.Tree(r.PID) {
			if s, err := procstat.ReadStat(pid); err == nil && !s.Zombie() && !seen[pid] {
				seen[pid] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// waitGone waits until none of the processes is alive (a zombie waiting for its parent counts
// as gone), at most max.
func waitGone(procs map[procID]bool, max time.Duration) {
	deadline := time.Now().Add(max)
	for id := range procs {
		for procstat.Alive(id.PID, id.Start) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // polling the kernel, not synchronizing goroutines
		}
	}
}
