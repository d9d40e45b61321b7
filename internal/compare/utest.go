package compare

import (
	"math"
	"sort"
)

// MannWhitney returns the two-sided p-value of the Mann-Whitney U test that samples a and b come
// from the same distribution. Without ties and with both samples of at most 50 values it is
// exact; otherwise it uses the normal approximation with tie and continuity corrections. It
// returns 1 when either sample is empty or every value is the same.
func MannWhitney(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type obs struct {
		v     float64
		fromA bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	// Ranks with ties averaged; tieSum is Σ(t³ - t) over the groups of ties.
	var rankA, tieSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of the 1-based ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankA += rank
			}
		}
		if t := float64(j - i); t > 1 {
			tieSum += t*t*t - t
		}
		i = j
	}
	N := float64(n1 + n2)
	if tieSum == N*N*N-N {
		return 1 // all values equal: nothing to tell apart
	}
	u := rankA - float64(n1*(n1+1))/2
	if tieSum == 0 && n1 <= 50 && n2 <= 50 {
		return exactP(u, n1, n2)
	}
	mean := float64(n1*n2) / 2
	sd := math.Sqrt(float64(n1*n2) / 12 * ((N + 1) - tieSum/(N*(N-1))))
	z := (math.Abs(u-mean) - 0.5) / sd
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactP is the two-sided p-value of U = u for samples of n1 and n2 without ties, from the
// exact distribution of U: the number of arrangements with each value of U, counted by the
// recurrence f(u; m, n) = f(u-n; m-1, n) + f(u; m, n-1).
func exactP(u float64, n1, n2 int) float64 {
	maxU := n1 * n2
	// counts[m][u] for the current n, built up n by n.
	prev := make([][]float64, n1+1) // n-1
	cur := make([][]float64, n1+1)
	for m := range prev {
		prev[m] = make([]float64, maxU+1)
		cur[m] = make([]float64, maxU+1)
	}
	// n = 0: only U = 0, one arrangement, for every m.
	for m := 0; m <= n1; m++ {
		prev[m][0] = 1
	}
	for n := 1; n <= n2; n++ {
		for m := 0; m <= n1; m++ {
			for v := 0; v <= maxU; v++ {
				c := prev[m][v] // the largest value is from b: U unchanged
				if m > 0 && v >= n {
					c += cur[m-1][v-n] // the largest value is from a: it beats all n of b
				}
				cur[m][v] = c
			}
		}
		prev, cur = cur, prev
	}
	dist := prev[n1]
	var total, low, high float64
	k := int(math.Round(u))
	for v, c := range dist {
		total += c
		if v <= k {
			low += c
		}
		if v >= k {
			high += c
		}
	}
	return math.Min(1, 2*math.Min(low, high)/total)
}
