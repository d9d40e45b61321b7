package bus

import (
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
)

func TestTallyAccounting(t *testing.T) {
	tl := newTally(4, 2)
	for i := range tl.sent {
		tl.sent[i] = 1000
	}
	lines := strings.Join([]string{
		"ready",
		"c 0 2000 0",
		"noise from a foreign consumer",
		"c 1 3000 0", // second distinct command: the fault trigger
		"c 1 3500 1", // redelivered after a kill: a duplicate handling
		"c 2 4000 0",
		"e 0 1001000 0",
		"e 0 1002000 1", // duplicate event
		"c 3 5000 0",
		"e 1 6000 0",
		"e 7 6000 0", // not sent by this run
		"x",
		"e 2 7000 0",
		"e 3 8000 0",
		"c 0 9", // cut off by a kill: ignored
	}, "\n")
	readies := 0
	if err := tl.read(strings.NewReader(lines), func() { readies++ }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tl.trigger:
	default:
		t.Fatal("trigger not fired after 2 distinct commands")
	}
	select {
	case <-tl.complete:
	default:
		t.Fatal("complete not closed")
	}
	if readies != 1 {
		t.Fatalf("ready seen %d times, want 1", readies)
	}
	c := tl.snapshot()
	want := counts{cmdDistinct: 4, cmdTotal: 5, evDistinct: 4, evTotal: 5, cmdRedelivered: 1, evRedelivered: 1,
		bad: 1, unknown: 1, firstCmd: 2000, lastCmd: 5000, firstEv: 6000, lastEv: 1002000}
	if c != want {
		t.Fatalf("counts\n got %+v\nwant %+v", c, want)
	}
	lostCmd, lostEv, dupCmd, dupEv := tl.missing()
	if lostCmd != 0 || lostEv != 0 || dupCmd != 1 || dupEv != 1 {
		t.Fatalf("missing = %d %d %d %d", lostCmd, lostEv, dupCmd, dupEv)
	}
	// Latency is recorded once per event, from its command's send time.
	if n := tl.hist.Count(); n != 4 {
		t.Fatalf("latency samples %d, want 4", n)
	}
	if max := tl.hist.Max(); max < float64((1001000-1000)/int64(time.Microsecond))*0.99 {
		t.Fatalf("max latency %v µs", max)
	}
}

func TestTallyLongLine(t *testing.T) {
	tl := newTally(1, 0)
	long := strings.Repeat("z", 100<<10)
	if err := tl.read(strings.NewReader(long+"\nc 0 5 0\n"), func() {}); err != nil {
		t.Fatal(err)
	}
	if c := tl.snapshot(); c.cmdDistinct != 1 {
		t.Fatalf("line after an over-long one lost: %+v", c)
	}
}

func TestPeakNeedsFullSecond(t *testing.T) {
	ivs := []interval{
		{dt: time.Second, point: pointOf("commands", 100)},
		{dt: 1100 * time.Millisecond, point: pointOf("commands", 300)},
		{dt: 200 * time.Millisecond, point: pointOf("commands", 900)},
	}
	if p := peak(ivs, "commands"); p != 300 {
		t.Fatalf("peak %v, want 300 (the partial interval does not count)", p)
	}
	if p := peak(ivs[2:], "commands"); p != 0 {
		t.Fatalf("peak of a sub-second run %v, want 0", p)
	}
}

func pointOf(key string, v float64) result.Point {
	return result.Point{Values: map[string]float64{key: v}}
}

// TestPeakOver: the best window of a chart sampling every 5 s lies between the phase's mean and
// its best second, and needs 5 s of series.
func TestPeakOver(t *testing.T) {
	var ivs []interval
	for _, rate := range []float64{100, 900, 300, 300, 300, 300, 100} { // one busy second in seven
		ivs = append(ivs, interval{dt: time.Second, point: result.Point{Values: map[string]float64{"commands": rate}}})
	}
	if got := peak(ivs, "commands"); got != 900 {
		t.Errorf("peak 1 s = %v, want 900", got)
	}
	if got := peakOver(ivs, "commands", 5*time.Second); got != 420 { // (900+4*300)/5
		t.Errorf("peak 5 s = %v, want 420", got)
	}
	if got := peakOver(ivs[:4], "commands", 5*time.Second); got != 0 {
		t.Errorf("peak 5 s of 4 s of series = %v, want 0", got)
	}
}
