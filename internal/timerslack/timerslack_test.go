//go:build linux

package timerslack_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/timerslack"
)

// childEnv makes the test binary run child instead of the tests.
const childEnv = "IOBENCH_TIMERSLACK_TEST_CHILD"

const want = 2_000_000 // ns

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		child()
		return
	}
	os.Exit(m.Run())
}

// child widens its slack (re-executing itself) and prints its PID, how many times it started and
// the slack of every one of its threads, as /proc says.
func child() {
	starts, _ := strconv.Atoi(os.Getenv(childEnv))
	os.Setenv(childEnv, strconv.Itoa(starts+1))
	if err := timerslack.Ensure(want); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("pid", os.Getpid(), "starts", starts)
	tasks, _ := filepath.Glob("/proc/self/task/*")
	for _, task := range tasks { // /proc/TID/timerslack_ns: the task directories lack it
		b, err := os.ReadFile(filepath.Join("/proc", filepath.Base(task), "timerslack_ns"))
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("slack", strings.TrimSpace(string(b)))
	}
	os.Exit(0)
}

// TestEnsure runs a child that widens its slack: it starts twice in one process (the second time
// with nothing left to do), and every thread it has then, the runtime's own included, has the
// slack.
func TestEnsure(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if head := fmt.Sprintf("pid %d starts 2", cmd.Process.Pid); lines[0] != head {
		t.Fatalf("child said %q, want %q: re-executed once, in the same process", lines[0], head)
	}
	if len(lines) < 3 {
		t.Fatalf("child saw fewer than 2 threads:\n%s", out)
	}
	for _, l := range lines[1:] {
		if l != fmt.Sprintf("slack %d", want) {
			t.Errorf("thread with %q, want slack %d", l, want)
		}
	}
}

// TestEnsureZero leaves the slack alone.
func TestEnsureZero(t *testing.T) {
	before := timerslack.Current()
	if err := timerslack.Ensure(0); err != nil || timerslack.Current() != before {
		t.Fatalf("Ensure(0) = %v, slack %d -> %d", err, before, timerslack.Current())
	}
}
