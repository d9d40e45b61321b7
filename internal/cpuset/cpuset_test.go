package cpuset

import (
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"", "", ""},
		{"0", "0", ""},
		{" 0 ", "0", ""},
		{"0,0", "0", ""},
		{"x", "", "is not a CPU list"},
		{"1-0", "", "is not a CPU list"},
		{"-1", "", "is not a CPU list"},
		{"1023", "", "is not one this machine lets iobench use"},
	} {
		s, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || s.String() != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, s, err, c.want)
		}
	}
}

func TestFormat(t *testing.T) {
	if got := format([]int{5, 0, 1, 2, 7, 8}); got != "0-2,5,7-8" {
		t.Fatalf("format = %q", got)
	}
}

// allowed returns the CPUs this test may use.
func allowed(t *testing.T) []int {
	var m unix.CPUSet
	if err := unix.SchedGetaffinity(0, &m); err != nil {
		t.Fatal(err)
	}
	return members(m)
}

func TestStartPinsTheChildOnly(t *testing.T) {
	cpus := allowed(t)
	last := cpus[len(cpus)-1]
	s, err := Parse(format([]int{last}))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("grep", "Cpus_allowed_list", "/proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	if err := Start(s, cmd.Start); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(out.String(), "Cpus_allowed_list:")); got != s.String() {
		t.Fatalf("child ran on %q, want %q", got, s)
	}
	if got := format(allowed(t)); got != format(cpus) {
		t.Fatalf("this thread is left on %s, had %s", got, format(cpus))
	}
}

func TestPinAndRestore(t *testing.T) {
	cpus := allowed(t)
	s, err := Parse(format(cpus[:1]))
	if err != nil {
		t.Fatal(err)
	}
	restore, err := Pin(s)
	if err != nil {
		t.Fatal(err)
	}
	tids, _ := threads()
	for _, tid := range tids {
		var m unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &m); err == nil && format(members(m)) != s.String() {
			restore()
			t.Fatalf("thread %d on %s, want %s", tid, format(members(m)), s)
		}
	}
	restore()
	if got := format(allowed(t)); got != format(cpus) {
		t.Fatalf("after restore on %s, want %s", got, format(cpus))
	}
}
