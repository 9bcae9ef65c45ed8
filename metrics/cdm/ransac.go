package cdm

import "math"

// consistent runs the reference's position-consistency rounds over the
// matched pairs' box centres (y, x): up to MaxIter rounds of RANSAC with a
// translation-and-scale model on the pairs not yet accepted, each round
// accepting its inliers (evaluation.py with scikit-image 0.19's ransac).
// Each round replays the reference's 50 random trials exactly: the same
// samples from numpy's default_rng(42) (npsample.go), the same rule for
// the best model (most inliers, then the smallest sum of squared
// residuals) and the same early stop (a sum of 0). The best of all
// 2-subsets is not what the reference finds: a pair whose residual is near
// the threshold (two neighbours swapped) is kept or rejected by the
// samples drawn (docs/cdm.md §9).
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

// ransacTrials is the reference's max_trials.
const ransacTrials = 50

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
	bestCount, bestSum := 0, math.Inf(1)
	var best []bool
	cur := make([]bool, n)
	rng := newRansacRNG()
	next := make([]int, prof.MinSamples)
	sample := make([]int, prof.MinSamples)
	rng.choice(n, next)
	for range ransacTrials {
		// ransac draws the next sample before it fits the current one
		copy(sample, next)
		rng.choice(n, next)
		t, scale := estimate(s, d, sample)
		count, sum := 0, 0.0
		// beaten: the trial cannot be the best, whatever the rest give:
		// fewer inliers than the best, or at most as many with a sum of
		// squares already as large (the terms still to come are squares,
		// which never make a sum smaller)
		beaten := false
		for k := range n {
			if most := count + (n - k); most < bestCount || most == bestCount && sum >= bestSum {
				beaten = true
				break
			}
			// the model scales about the centroid of the points passed
			// in; the conversions keep each operation rounded as numpy
			// rounds it (no fused multiply-add)
			y := float64(float64(scale*(s[k][0]-cs[0]))+cs[0]) + t[0] - d[k][0]
			x := float64(float64(scale*(s[k][1]-cs[1]))+cs[1]) + t[1] - d[k][1]
			r := math.Sqrt(float64(y*y) + float64(x*x))
			cur[k] = r < prof.Threshold
			if cur[k] {
				count++
			}
			sum += float64(r * r)
		}
		if !beaten && (count > bestCount || count == bestCount && sum < bestSum) {
			bestCount, bestSum = count, sum
			best = append(best[:0], cur...)
			if bestSum <= 0 {
				break
			}
		}
	}
	if bestCount == 0 {
		return nil
	}
	return best
}

// estimate is SimpleAffineTransform.estimate on a sample: translation
// between the centroids, scale the ratio of the mean Euclidean distances
// to them.
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
		// np.linalg.norm: the square root of the sum of squares
		sy, sx := s[i][0]-sc[0], s[i][1]-sc[1]
		dy, dx := d[i][0]-dc[0], d[i][1]-dc[1]
		sd += math.Sqrt(float64(sy*sy) + float64(sx*sx))
		dd += math.Sqrt(float64(dy*dy) + float64(dx*dx))
	}
	return [2]float64{dc[0] - sc[0], dc[1] - sc[1]}, (dd / k) / (sd/k + 1e-10)
}
