package cdm

import (
	"math"
	"math/rand/v2"
	"sort"
)

// consistent runs the reference's position-consistency rounds over the
// matched pairs' box centres (y, x): up to MaxIter rounds of RANSAC with a
// translation-and-scale model on the pairs not yet accepted, each round
// accepting its inliers (evaluation.py with scikit-image 0.19's ransac).
// The random trials are replaced by every MinSamples-subset of the
// remaining pairs (random subsets above 500 pairs), with the same rule
// for the best model: most inliers, then the smallest sum of squared
// residuals; docs/cdm.md §9 found no case where the scores differ.
func consistent(src, dst [][2]float64, prof Profile) []bool {
	n := len(src)
	inl := make([]bool, n)
	if n <= prof.MinSamples {
		for i := range inl {
			inl[i] = true
		}
		return inl
	}
	for range prof.MaxIter {
		var rem []int
		for i, ok := range inl {
			if !ok {
				rem = append(rem, i)
			}
		}
		if len(rem) <= prof.MinSamples {
			break
		}
		best := fitRound(src, dst, rem, prof)
		if best == nil {
			break
		}
		for k, i := range rem {
			if best[k] {
				inl[i] = true
			}
		}
		all := true
		for _, ok := range inl {
			all = all && ok
		}
		if all {
			break
		}
	}
	return inl
}

// fitRound is one ransac call on the remaining pairs; it returns the
// best trial's inlier mask, or nil when no trial has an inlier.
func fitRound(src, dst [][2]float64, rem []int, prof Profile) []bool {
	n := len(rem)
	s := make([][2]float64, n)
	d := make([][2]float64, n)
	var cs [2]float64
	for k, i := range rem {
		s[k], d[k] = src[i], dst[i]
		cs[0] += src[i][0]
		cs[1] += src[i][1]
	}
	cs[0] /= float64(n)
	cs[1] /= float64(n)
	bestCount, bestSum := -1, math.Inf(1)
	var best []bool
	cur := make([]bool, n)
	sample := make([]int, prof.MinSamples)
	try := func() bool {
		t, scale := estimate(s, d, sample)
		count, sum := 0, 0.0
		for k := range n {
			// the model scales about the centroid of the points passed in
			y := scale*(s[k][0]-cs[0]) + cs[0] + t[0] - d[k][0]
			x := scale*(s[k][1]-cs[1]) + cs[1] + t[1] - d[k][1]
			r := math.Sqrt(y*y + x*x)
			cur[k] = r < prof.Threshold
			if cur[k] {
				count++
			}
			sum += r * r
		}
		if count > bestCount || count == bestCount && sum < bestSum {
			bestCount, bestSum = count, sum
			best = append(best[:0], cur...)
		}
		return sum == 0 || count == n
	}
	if n <= 500 {
		forEachSubset(n, prof.MinSamples, sample, try)
	} else {
		rng := rand.New(rand.NewPCG(42, uint64(n)))
		for range 5000 {
			perm := rng.Perm(n)[:prof.MinSamples]
			sort.Ints(perm)
			copy(sample, perm)
			if try() {
				break
			}
		}
	}
	if bestCount <= 0 {
		return nil
	}
	return best
}

// forEachSubset calls f with every k-subset of 0…n−1 in lexicographic
// order until f returns true.
func forEachSubset(n, k int, idx []int, f func() bool) {
	for i := range k {
		idx[i] = i
	}
	for {
		if f() {
			return
		}
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// estimate is SimpleAffineTransform.estimate on a sample: translation
// between the centroids, scale the ratio of the mean distances to them.
func estimate(s, d [][2]float64, sample []int) (t [2]float64, scale float64) {
	var sc, dc [2]float64
	for _, i := range sample {
		sc[0] += s[i][0]
		sc[1] += s[i][1]
		dc[0] += d[i][0]
		dc[1] += d[i][1]
	}
	k := float64(len(sample))
	sc[0], sc[1], dc[0], dc[1] = sc[0]/k, sc[1]/k, dc[0]/k, dc[1]/k
	var sd, dd float64
	for _, i := range sample {
		sd += math.Hypot(s[i][0]-sc[0], s[i][1]-sc[1])
		dd += math.Hypot(d[i][0]-dc[0], d[i][1]-dc[1])
	}
	return [2]float64{dc[0] - sc[0], dc[1] - sc[1]}, (dd / k) / (sd/k + 1e-10)
}
