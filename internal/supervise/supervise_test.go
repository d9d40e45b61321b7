package supervise

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStartWaitsForPortAndStopLeavesNothing(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	// A shell that starts a listener in a grandchild: Stop must end the whole group.
	script := "python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"127.0.0.1\"," + port + ")); s.listen(); time.sleep(60)' & wait"
	p, err := Start(context.Background(), Spec{Name: "listener", Path: "/bin/sh", Args: []string{"-c", script}, ReadyAddr: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	pgid := p.PID()
	if p.Exited() {
		t.Fatal("exited while ready")
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if alive := liveInGroup(pgid); len(alive) > 0 {
		t.Fatalf("processes %v of the group are alive after Stop", alive)
	}
	if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
		c.Close()
		t.Fatal("the port still accepts after Stop")
	}
}

func TestStartReportsEarlyExit(t *testing.T) {
	addr, _ := FreeAddr()
	_, err := Start(context.Background(), Spec{Name: "broken", Path: "/bin/sh", Args: []string{"-c", "echo cannot bind >&2; exit 3"}, ReadyAddr: addr})
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "cannot bind") {
		t.Fatalf("error %v: want the early exit and the child's output", err)
	}
}

func TestStartTimesOut(t *testing.T) {
	addr, _ := FreeAddr()
	_, err := Start(context.Background(), Spec{Name: "silent", Path: "/bin/sleep", Args: []string{"30"}, ReadyAddr: addr, Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not accept connections") {
		t.Fatalf("error %v: want a readiness timeout", err)
	}
}

// liveInGroup lists the processes of group pgid that are not zombies (this machine's init does
// not reap orphans, so a killed grandchild may linger as a zombie holding nothing).
func liveInGroup(pgid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var alive []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			alive = append(alive, pid)
		}
	}
	return alive
}
