package cpuprobe

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// TestRun checks that the probe times its work: more than nothing, far less than a second.
func TestRun(t *testing.T) {
	d := Run()
	t.Logf("probe %v", d)
	if d <= 0 || d > time.Second {
		t.Fatalf("Run() = %v: want the time of about 1-2 ms of work", d)
	}
}

// TestWorkIsFixed checks that every round does the same work: the same sorted keys, the same
// counts after as many rounds, so that two probes measure the machine, not their input.
func TestWorkIsFixed(t *testing.T) {
	a, b := make([]int, size), make([]int, size)
	ca, cb := map[int]int{}, map[int]int{}
	work(a, ca)
	work(b, cb)
	if !slices.Equal(a, b) || !maps.Equal(ca, cb) || !slices.IsSorted(a) {
		t.Fatal("two rounds of work differ, or its keys are not sorted")
	}
	if len(slices.Compact(slices.Clone(a))) != size || len(ca) != size {
		t.Fatalf("%d distinct keys, %d counted: want %d of each", len(slices.Compact(slices.Clone(a))), len(ca), size)
	}
}

func TestMicros(t *testing.T) {
	if got := Micros(1234567 * time.Nanosecond); got != 1234.6 {
		t.Fatalf("Micros(1.234567ms) = %v, want 1234.6", got)
	}
}
