// Package stats holds the statistics of leakaudit's findings
// (docs/audit-statistics.md §1): Wilson score intervals for
// proportions, Newcombe's hybrid score interval for a difference of two
// proportions, the pooled two-proportion z-test with Fisher's exact test
// for small cells, the Mantel–Haenszel risk difference and the
// Cochran–Mantel–Haenszel test over strata, and Holm's step-down
// adjustment. Everything is closed-form and deterministic.
package stats

import (
	"math"
	"sort"
)

// Z95 is the two-sided 95% normal quantile.
const Z95 = 1.959964

// Interval is a confidence interval.
type Interval struct{ Lo, Hi float64 }

// Contains reports whether x lies in the interval.
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// Wilson returns the Wilson score interval of k successes in n at z; ok
// is false when n is 0.
func Wilson(k, n int, z float64) (Interval, bool) {
	if n <= 0 {
		return Interval{}, false
	}
	p := float64(k) / float64(n)
	nn := float64(n)
	den := 1 + z*z/nn
	centre := (p + z*z/(2*nn)) / den
	half := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / den
	return Interval{math.Max(0, centre-half), math.Min(1, centre+half)}, true
}

// Newcombe returns Newcombe's hybrid score interval for p1 − p2.
func Newcombe(k1, n1, k2, n2 int, z float64) (Interval, bool) {
	w1, ok1 := Wilson(k1, n1, z)
	w2, ok2 := Wilson(k2, n2, z)
	if !ok1 || !ok2 {
		return Interval{}, false
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	d := p1 - p2
	lo := d - math.Sqrt((p1-w1.Lo)*(p1-w1.Lo)+(w2.Hi-p2)*(w2.Hi-p2))
	hi := d + math.Sqrt((w1.Hi-p1)*(w1.Hi-p1)+(p2-w2.Lo)*(p2-w2.Lo))
	return Interval{lo, hi}, true
}

// Test is a hypothesis test's outcome.
type Test struct {
	Method string  `json:"method"` // "z" or "fisher"
	Z      float64 `json:"z,omitempty"`
	P      float64 `json:"p"`
}

// TwoProportions tests p1 = p2 for independent groups: the pooled
// z-test, or Fisher's exact test when an expected cell is below 5.
func TwoProportions(k1, n1, k2, n2 int) Test {
	if n1 == 0 || n2 == 0 {
		return Test{Method: "none", P: 1}
	}
	n := float64(n1 + n2)
	k := float64(k1 + k2)
	for _, e := range []float64{k * float64(n1) / n, k * float64(n2) / n, (n - k) * float64(n1) / n, (n - k) * float64(n2) / n} {
		if e < 5 {
			return Test{Method: "fisher", P: Fisher(k1, n1-k1, k2, n2-k2)}
		}
	}
	p := k / n
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return Test{Method: "z", P: 1}
	}
	z := (float64(k1)/float64(n1) - float64(k2)/float64(n2)) / se
	return Test{Method: "z", Z: z, P: math.Erfc(math.Abs(z) / math.Sqrt2)}
}

// Fisher is the two-sided Fisher exact test of the 2×2 table [[a b] [c d]]:
// the sum of the probabilities of the tables with the same margins that
// are no more likely than the observed one.
func Fisher(a, b, c, d int) float64 {
	r1, c1, n := a+b, a+c, a+b+c+d
	lo, hi := max(0, c1-(n-r1)), min(r1, c1)
	logp := func(x int) float64 {
		return lchoose(r1, x) + lchoose(n-r1, c1-x) - lchoose(n, c1)
	}
	obs := logp(a)
	var sum float64
	for x := lo; x <= hi; x++ {
		if lp := logp(x); lp <= obs+1e-7 {
			sum += math.Exp(lp)
		}
	}
	return math.Min(1, sum)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Holm returns Holm–Bonferroni adjusted p-values, in the input order.
func Holm(p []float64) []float64 {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, len(p))
	m := len(p)
	running := 0.0
	for rank, i := range idx {
		v := math.Min(1, float64(m-rank)*p[i])
		running = math.Max(running, v)
		adj[i] = running
	}
	return adj
}

// Stratum is one stratum's 2×2 counts: k1 of n1 in group 1, k0 of n0 in
// group 0.
type Stratum struct{ K1, N1, K0, N0 int }

// MantelHaenszel returns the Mantel–Haenszel risk difference over strata
// (weights n1·n0/N) and the Cochran–Mantel–Haenszel χ² with continuity
// correction and its p-value (1 degree of freedom).
func MantelHaenszel(strata []Stratum) (rd, chi2, p float64) {
	var num, den, sumA, sumE, sumV float64
	for _, s := range strata {
		n1, n0 := float64(s.N1), float64(s.N0)
		N := n1 + n0
		if s.N1 == 0 || s.N0 == 0 || N < 2 {
			continue
		}
		w := n1 * n0 / N
		num += w * (float64(s.K1)/n1 - float64(s.K0)/n0)
		den += w
		m1 := float64(s.K1 + s.K0)
		m0 := N - m1
		sumA += float64(s.K1)
		sumE += n1 * m1 / N
		sumV += n1 * n0 * m1 * m0 / (N * N * (N - 1))
	}
	if den == 0 || sumV == 0 {
		return 0, 0, 1
	}
	rd = num / den
	d := math.Abs(sumA-sumE) - 0.5
	if d < 0 {
		d = 0
	}
	chi2 = d * d / sumV
	p = math.Erfc(math.Sqrt(chi2) / math.Sqrt2)
	return rd, chi2, p
}
