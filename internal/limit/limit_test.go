package limit

import (
	"testing"

	"github.com/iobench/iobench/internal/result"
)

func proc(name, role string, cpu float64, threads ...float64) result.Process {
	return result.Process{Name: name, Role: role, CPUPercent: cpu, HotThreads: threads}
}

func TestOf(t *testing.T) {
	gen := func(cpu float64, threads ...float64) result.Process {
		return proc("iobench", "generator", cpu, threads...)
	}
	sut := func(name string, cpu float64, threads ...float64) result.Process {
		return proc(name, "sut", cpu, threads...)
	}
	for _, tc := range []struct {
		name  string
		procs []result.Process
		cores int
		busy  float64 // the machine's, all processes
		who   string
		text  string
	}{
		{"one-threaded server", []result.Process{gen(40, 20, 15), sut("node-hello", 99, 97, 2)}, 2, 0,
			"node-hello", "node-hello: its one busy thread at 97% of a core"},
		{"two saturated threads", []result.Process{gen(30, 15, 15), sut("go-hello", 190, 95, 94, 1)}, 4, 0,
			"go-hello", "go-hello: its 2 busy threads at 95% and 94% of a core"},
		{"a pool of workers", []result.Process{sut("php-cachequeue", 360, 97, 88, 91, 90), proc("redis", "service", 20, 19)}, 8, 0,
			"php-cachequeue", "php-cachequeue: its 4 busy threads at 88–97% of a core"},
		{"rounded down", []result.Process{sut("a", 99.9, 99.9)}, 0, 0, "a", "a: its one busy thread at 99% of a core"},
		{"a busy thread with room", []result.Process{sut("node-hello", 122, 97, 25)}, 4, 0,
			"nothing", "no process saturated in every busy thread (node-hello's busiest at 97% of a core; its other busy ones had room)"},
		{"just busy, just saturated", []result.Process{sut("a", 105, 85, 19.9)}, 4, 0, "a", "a: its one busy thread at 85% of a core"},
		{"just below saturated", []result.Process{sut("a", 84.9, 84.9)}, 4, 0, "near saturation: a", "near saturation: a: its one busy thread at 84% of a core"},
		{"near, at the line", []result.Process{sut("a", 95, 75, 19)}, 4, 0, "near saturation: a", "near saturation: a: its one busy thread at 75% of a core"},
		{"near but another busy thread with room", []result.Process{sut("a", 95, 75, 20)}, 4, 0, "nothing", "nothing saturated (max thread 75%): the run waited on I/O or latency"},
		{"just below near", []result.Process{sut("a", 74.9, 74.9)}, 4, 0, "nothing", "nothing saturated (max thread 74%): the run waited on I/O or latency"},
		{"idle threads only", []result.Process{sut("a", 30, 19, 11)}, 4, 0, "nothing", "nothing saturated (max thread 19%): the run waited on I/O or latency"},
		{"the CPU", []result.Process{gen(96, 50, 46), sut("node-hello", 94, 60, 30), proc("nginx", "service", 0.5, 0.5)}, 2, 0,
			"the CPU", "the CPU: 2 cores 95% busy (generator 96% of a core, node-hello 94%)"},
		{"generator alone", []result.Process{gen(40, 30, 10)}, 2, 0,
			"nothing", "nothing measured saturated (max thread 30%): the run waited on the system under test (not measured), I/O or latency"},
		{"CPU at the threshold", []result.Process{gen(86), sut("a", 84)}, 2, 0, "the CPU", "the CPU: 2 cores 85% busy (generator 86% of a core, a 84%)"},
		{"CPU just below", []result.Process{gen(86, 50, 36), sut("a", 83.8, 40, 40)}, 2, 0, "near saturation: the CPU", "near saturation: the CPU: 2 cores 84% busy (generator 86% of a core, a 84%)"},
		// A closed loop against go-hello at 107k req/s: 82.9% of both cores busy, no thread saturated.
		{"closed-loop hello near the CPU's line", []result.Process{gen(78, 40, 38), sut("go-hello", 80, 22, 21, 20, 17)}, 2, 82.9,
			"near saturation: the CPU", "near saturation: the CPU: 2 cores 82% busy (go-hello 80% of a core, generator 78%, other processes 8%)"},
		{"near: a process and the CPU", []result.Process{gen(70, 40, 30), sut("node-hello", 80, 80)}, 2, 0,
			"near saturation: node-hello and the CPU", "near saturation: node-hello: its one busy thread at 80% of a core; the CPU: 2 cores 75% busy (node-hello 80% of a core, generator 70%)"},
		{"CPU just below near", []result.Process{gen(70, 40, 30), sut("a", 79.8, 60)}, 2, 0, "nothing", "nothing saturated (max thread 60%): the run waited on I/O or latency"},
		{"both", []result.Process{gen(95, 60, 35), sut("node-hello", 97, 97)}, 2, 0,
			"node-hello and the CPU", "both saturated: node-hello: its one busy thread at 97% of a core; the CPU: 2 cores 96% busy (node-hello 97% of a core, generator 95%)"},
		{"two saturated processes", []result.Process{gen(98, 98), sut("redis-like", 96, 96)}, 8, 0,
			"generator, redis-like", "generator: its one busy thread at 98% of a core; redis-like: its one busy thread at 96% of a core"},
		{"older record", []result.Process{gen(40), sut("a", 60)}, 2, 0,
			"not known", "not known: the record has no per-thread CPU (the measured processes used 50% of 2 cores)"},
		{"older record, machine measured", []result.Process{gen(40), sut("a", 60)}, 2, 70,
			"not known", "not known: the record has no per-thread CPU (2 cores 70% busy)"},
		{"older record, CPU full", []result.Process{gen(90), sut("a", 100)}, 2, 0, "the CPU", "the CPU: 2 cores 95% busy (a 100% of a core, generator 90%)"},
		{"no cores, no threads", []result.Process{sut("a", 300)}, 0, 0, "not known", "not known: the record has neither per-thread CPU nor the machine's cores"},
		{"no cores", []result.Process{sut("a", 300, 99, 99, 98)}, 0, 0, "a", "a: its 3 busy threads at 98–99% of a core"},
		{"no processes", nil, 2, 0, "not known", "not known: the record has no process costs"},
		{"other processes took the CPU", []result.Process{gen(36, 12, 10), sut("go-hello", 27, 7, 4)}, 2, 97.5,
			"the CPU", "the CPU: 2 cores 97% busy (generator 36% of a core, go-hello 27%, other processes 132%)"},
		{"the machine's figure below the processes'", []result.Process{gen(96, 50, 46), sut("node-hello", 94, 60, 30)}, 2, 80,
			"the CPU", "the CPU: 2 cores 95% busy (generator 96% of a core, node-hello 94%)"},
		{"a machine with room", []result.Process{gen(40, 30, 10), sut("a", 50, 45)}, 2, 60,
			"nothing", "nothing saturated (max thread 45%): the run waited on I/O or latency"},
		{"older record, busy machine", []result.Process{gen(40), sut("a", 60)}, 2, 92,
			"the CPU", "the CPU: 2 cores 92% busy (a 60% of a core, generator 40%, other processes 84%)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Of(tc.procs, tc.cores, tc.busy)
			if v.Who() != tc.who || v.String() != tc.text {
				t.Errorf("Who %q, String %q\nwant    %q,        %q", v.Who(), v.String(), tc.who, tc.text)
			}
		})
	}
}

func TestOfRecord(t *testing.T) {
	rec := &result.Record{Environment: result.Environment{Cores: 2}, Processes: []result.Process{proc("a", "sut", 95, 95)}, MachineCPU: 99}
	if v := OfRecord(rec); !v.CPU || v.Who() != "a and the CPU" || v.Busy != 99 {
		t.Errorf("verdict %+v, who %q", v, v.Who())
	}
}

func TestThreadsText(t *testing.T) {
	if got := ThreadsText(proc("a", "sut", 100, 97.6, 2.2)); got != "97% 2%" {
		t.Errorf("ThreadsText %q", got)
	}
	if got := ThreadsText(proc("a", "sut", 100)); got != "" {
		t.Errorf("ThreadsText without threads %q", got)
	}
}
