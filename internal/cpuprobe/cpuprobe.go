// Package cpuprobe times a fixed piece of single-threaded CPU work, so that a run on a machine
// whose speed moves (a virtual machine beside others on its host) can be read beside the
// machine's speed at that moment: when the same code runs a third slower and the probe does too,
// the machine changed, not the code.
package cpuprobe

import (
	"math"
	"sort"
	"time"
)

// rounds is how many times Run does the work; it keeps the fastest, the one least disturbed.
const rounds = 5

// size is the work's number of keys, a power of two: about 1-2 ms a round on a current server core.
const size = 16384

// Run returns the fastest of five rounds of a fixed CPU-bound loop on the calling goroutine (a
// sort of size numbers and as many map updates, what interpreters' work is made of: branches,
// hashing, memory), 5-10 ms in all. Lower is a faster machine; compare runs of one machine only.
func Run() time.Duration {
	keys := make([]int, size)
	counts := make(map[int]int, size)
	best := time.Duration(1<<63 - 1)
	for r := 0; r < rounds; r++ {
		start := time.Now()
		work(keys, counts)
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return best
}

// work is one round: the same keys in the same scrambled order each time, sorted, then counted.
func work(keys []int, counts map[int]int) {
	for i := range keys {
		keys[i] = (i * 7919) % size // a permutation of 0..size-1: 7919 is odd, size a power of two
	}
	sort.Ints(keys)
	for i, k := range keys {
		counts[(k*31)%size] += i
	}
}

// Micros is d in microseconds to 0.1, as records carry the probe.
func Micros(d time.Duration) float64 {
	return math.Round(float64(d)/100) / 10
}
