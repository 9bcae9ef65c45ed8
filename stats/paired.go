package stats

import "math"

// Paired is the 2×2 table of two classifiers' decisions on the same n
// items: Both right, OnlyA right, OnlyB right, Neither right.
type Paired struct{ Both, OnlyA, OnlyB, Neither int }

// N is the number of items.
func (p Paired) N() int { return p.Both + p.OnlyA + p.OnlyB + p.Neither }

// Diff is pA − pB = (OnlyA − OnlyB)/n; 0 when n is 0.
func (p Paired) Diff() float64 {
	if p.N() == 0 {
		return 0
	}
	return float64(p.OnlyA-p.OnlyB) / float64(p.N())
}

// NewcombePaired returns Newcombe's score interval for the difference of
// two paired proportions pA − pB (Newcombe 1998, Stat Med 17:2635,
// method 10): the two Wilson intervals combined with the estimated
// correlation φ of the pairs,
//
//	φ = (Both·Neither − OnlyA·OnlyB) / √((Both+OnlyA)(OnlyB+Neither)(Both+OnlyB)(OnlyA+Neither)),
//
// taken as 0 when a margin is empty. ok is false when n is 0.
func NewcombePaired(p Paired, z float64) (Interval, bool) {
	n := p.N()
	if n == 0 {
		return Interval{}, false
	}
	kA, kB := p.Both+p.OnlyA, p.Both+p.OnlyB
	wA, _ := Wilson(kA, n, z)
	wB, _ := Wilson(kB, n, z)
	pA, pB := float64(kA)/float64(n), float64(kB)/float64(n)
	phi := 0.0
	den := float64(p.Both+p.OnlyA) * float64(p.OnlyB+p.Neither) * float64(p.Both+p.OnlyB) * float64(p.OnlyA+p.Neither)
	if den > 0 {
		phi = (float64(p.Both)*float64(p.Neither) - float64(p.OnlyA)*float64(p.OnlyB)) / math.Sqrt(den)
	}
	d := pA - pB
	dl := (pA - wA.Lo) * (pA - wA.Lo)
	dl += -2*phi*(pA-wA.Lo)*(wB.Hi-pB) + (wB.Hi-pB)*(wB.Hi-pB)
	du := (wA.Hi - pA) * (wA.Hi - pA)
	du += -2*phi*(wA.Hi-pA)*(pB-wB.Lo) + (pB-wB.Lo)*(pB-wB.Lo)
	return Interval{math.Max(-1, d-math.Sqrt(math.Max(0, dl))), math.Min(1, d+math.Sqrt(math.Max(0, du)))}, true
}

// McNemarExact is the exact two-sided McNemar test of the discordant
// counts b and c: twice the binomial(b+c, ½) probability of a split at
// least as uneven as min(b, c), at most 1; 1 when b+c is 0.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Σ_{i≤k} C(n,i) / 2^n, summed in log space for large n.
	var sum float64
	for i := 0; i <= k; i++ {
		sum += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

// MHRiskDifference is the Mantel–Haenszel risk difference over strata
// (weights n1·n0/N, as MantelHaenszel) and its interval rd ± z·√var,
// with the Greenland–Robins variance Σ w²(p1q1/n1 + p0q0/n0) / (Σ w)²
// computed on Agresti–Caffo's adjusted proportions p̃ = (k+1)/(n+2) (and
// n+2 in the denominators): a stratum in which every item is right (or
// wrong) would otherwise count as known without error, and the interval
// of a gap between near-perfect groups would be far too narrow. ok is
// false when no stratum has items in both groups.
func MHRiskDifference(strata []Stratum, z float64) (rd float64, iv Interval, ok bool) {
	var num, den, v float64
	for _, s := range strata {
		if s.N1 == 0 || s.N0 == 0 {
			continue
		}
		n1, n0 := float64(s.N1), float64(s.N0)
		w := n1 * n0 / (n1 + n0)
		p1, p0 := float64(s.K1)/n1, float64(s.K0)/n0
		num += w * (p1 - p0)
		den += w
		a1, a0 := (float64(s.K1)+1)/(n1+2), (float64(s.K0)+1)/(n0+2)
		v += w * w * (a1*(1-a1)/(n1+2) + a0*(1-a0)/(n0+2))
	}
	if den == 0 {
		return 0, Interval{}, false
	}
	rd = num / den
	se := math.Sqrt(v) / den
	return rd, Interval{rd - z*se, rd + z*se}, true
}

// DiffStratum is one stratum of a difference-in-differences: per item, a
// paired outcome difference d ∈ {−1, 0, 1} (model minus control), summed
// (Sum) with its squares (Sq) over the N1 items of group 1 and the N0 of
// group 0.
type DiffStratum struct {
	Sum1, Sq1, N1 int
	Sum0, Sq0, N0 int
}

// MHDiffInDiff is the stratified difference between groups 1 and 0 of
// the mean paired difference d, with the Mantel–Haenszel weights
// n1·n0/N: the difference of two models' Mantel–Haenszel risk
// differences over the same items and strata. Its variance,
// Σ w²(s1²/n1 + s0²/n0) / (Σ w)² with s² the sample variance of d in each
// group and stratum, accounts for the pairing of the two models on each
// item. ok is false when no stratum has items in both groups.
func MHDiffInDiff(strata []DiffStratum, z float64) (est float64, iv Interval, ok bool) {
	var num, den, v float64
	for _, s := range strata {
		if s.N1 == 0 || s.N0 == 0 {
			continue
		}
		n1, n0 := float64(s.N1), float64(s.N0)
		w := n1 * n0 / (n1 + n0)
		m1, m0 := float64(s.Sum1)/n1, float64(s.Sum0)/n0
		num += w * (m1 - m0)
		den += w
		// The variance of d with the two pseudo-items.
		a1, a0 := float64(s.Sum1)/(n1+2), float64(s.Sum0)/(n0+2)
		v1 := (float64(s.Sq1)+2)/(n1+2) - a1*a1
		v0 := (float64(s.Sq0)+2)/(n0+2) - a0*a0
		v += w * w * (math.Max(0, v1)/(n1+2) + math.Max(0, v0)/(n0+2))
	}
	if den == 0 {
		return 0, Interval{}, false
	}
	est = num / den
	se := math.Sqrt(v) / den
	return est, Interval{est - z*se, est + z*se}, true
}
