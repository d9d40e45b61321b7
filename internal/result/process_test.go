package result

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

func TestNewProcessHotThreads(t *testing.T) {
	u := procstat.Usage{User: 1500 * time.Millisecond, Threads: []time.Duration{970 * time.Millisecond, 333 * time.Millisecond}}
	p := NewProcess("node-hello", "sut", 42, u, time.Second)
	if p.CPUPercent != 150 || !slices.Equal(p.HotThreads, []float64{97, 33.3}) {
		t.Fatalf("cpu %v%%, threads %v; want 150%% and [97 33.3]", p.CPUPercent, p.HotThreads)
	}
	if p := NewProcess("x", "sut", 0, u, 0); p.CPUPercent != 0 || p.HotThreads != nil {
		t.Fatalf("without wall time: %+v", p)
	}
}

// TestProcessOlderRecords: schema 1 records without threads still read, and a process without
// threads writes none.
func TestProcessOlderRecords(t *testing.T) {
	var p Process
	if err := json.Unmarshal([]byte(`{"name":"go-hello","role":"sut","cpu_user_s":1,"cpu_system_s":0,"peak_rss_bytes":1,"cpu_percent":50}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.CPUPercent != 50 || p.HotThreads != nil {
		t.Fatalf("read %+v", p)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "hot_threads") {
		t.Fatalf("wrote %s", b)
	}
}
