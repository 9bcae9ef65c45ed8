package cdm

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fitRoundUnpruned is fitRound as written before a trial stopped once
// its sum of squares reached the best's: it stops only on fewer inliers.
// TestFitRoundPruning compares the two.
func fitRoundUnpruned(src, dst [][2]float64, rem []int, prof Profile) []bool {
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
		copy(sample, next)
		rng.choice(n, next)
		t, scale := estimate(s, d, sample)
		count, sum := 0, 0.0
		beaten := false
		for k := range n {
			if count+(n-k) < bestCount {
				beaten = true
				break
			}
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

// TestFitRoundPruning runs fitRound and fitRoundUnpruned on random
// matched box centres (a shifted and scaled copy with jitter, swaps and
// outliers, so that trials tie on inliers and differ in their sums) and
// requires the same inlier mask.
func TestFitRoundPruning(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 37))
	for trial := range 3000 {
		n := 3 + rng.IntN(40)
		src, dst := make([][2]float64, n), make([][2]float64, n)
		scale := 0.8 + 0.4*rng.Float64()
		dy, dx := 30*rng.NormFloat64(), 30*rng.NormFloat64()
		jitter := []float64{0, 0.5, 3, 12}[rng.IntN(4)]
		for i := range src {
			src[i] = [2]float64{float64(rng.IntN(120)), float64(rng.IntN(900))}
			dst[i] = [2]float64{scale*src[i][0] + dy + jitter*rng.NormFloat64(), scale*src[i][1] + dx + jitter*rng.NormFloat64()}
			if rng.IntN(6) == 0 {
				dst[i] = [2]float64{float64(rng.IntN(120)), float64(rng.IntN(900))} // an outlier
			}
		}
		rem := make([]int, 0, n)
		for i := range n {
			if rng.IntN(5) > 0 {
				rem = append(rem, i)
			}
		}
		if len(rem) <= UniMERNet.MinSamples {
			continue
		}
		for _, prof := range []Profile{UniMERNet, OmniDocBench} {
			got, want := fitRound(src, dst, rem, prof), fitRoundUnpruned(src, dst, rem, prof)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d (%s): fitRound %v, unpruned %v", trial, prof.Name, got, want)
			}
		}
	}
}
