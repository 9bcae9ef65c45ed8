package cdm

import (
	"math"
	"math/bits"
)

// The reference's RANSAC (scikit-image 0.19's ransac with random_state=42)
// draws its samples from numpy's default_rng(42): a PCG64 bit generator
// and Generator.choice(n, k, replace=False). ransacSampler reproduces that
// stream draw for draw (numpy 1.24), so that leakaudit tries the very
// samples the reference tries: the trial a 2-subset gets is what decides
// a pair whose residual is near the threshold (docs/cdm.md §9).

// pcg64State42 is the PCG64 state numpy's default_rng(42) starts from
// (SeedSequence(42) expanded): state and increment, high and low words.
var pcg64State42 = [4]uint64{0xcea44f6798798f2a, 0xacbc7c9d68860ac8, 0xfa505436c9a8416e, 0x66caf2e28d25abff}

// pcg64Mul is PCG's default 128-bit multiplier.
const pcg64MulHi, pcg64MulLo = 0x2360ed051fc65da4, 0x4385df649fccf645

// pcg64 is numpy's PCG64 (128-bit LCG, XSL-RR output) with its buffered
// 32-bit draws.
type pcg64 struct {
	hi, lo       uint64 // state
	incHi, incLo uint64
	hasU32       bool
	u32          uint32
}

// newRansacRNG returns the generator of one ransac call, as
// np.random.default_rng(42) creates it.
func newRansacRNG() pcg64 {
	s := pcg64State42
	return pcg64{hi: s[0], lo: s[1], incHi: s[2], incLo: s[3]}
}

// next64 steps the LCG, then outputs the new state (numpy's order).
func (p *pcg64) next64() uint64 {
	// state = state·mul + inc (mod 2^128)
	h, l := bits.Mul64(p.lo, pcg64MulLo)
	h += p.lo*pcg64MulHi + p.hi*pcg64MulLo
	var c uint64
	l, c = bits.Add64(l, p.incLo, 0)
	h, _ = bits.Add64(h, p.incHi, c)
	p.hi, p.lo = h, l
	return bits.RotateLeft64(h^l, -int(h>>58))
}

// next32 is numpy's pcg64_next32: the low half of a 64-bit draw, the high
// half kept for the next call.
func (p *pcg64) next32() uint32 {
	if p.hasU32 {
		p.hasU32 = false
		return p.u32
	}
	v := p.next64()
	p.hasU32, p.u32 = true, uint32(v>>32)
	return uint32(v)
}

// bounded is numpy's random_bounded_uint64(0, rng) for rng < 2^32 (Lemire's
// method on 32-bit draws), a value in 0…rng.
func (p *pcg64) bounded(rng uint32) uint32 {
	switch rng {
	case 0:
		return 0
	case math.MaxUint32:
		return p.next32()
	}
	excl := rng + 1
	m := uint64(p.next32()) * uint64(excl)
	if left := uint32(m); left < excl {
		threshold := (math.MaxUint32 - rng) % excl
		for left < threshold {
			m = uint64(p.next32()) * uint64(excl)
			left = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// choice is Generator.choice(n, k, replace=False) for k < n < 2^32 and
// k ≤ n/50 or n ≤ 10,000, which covers every ransac call (k is 2 or 3):
// Floyd's algorithm, then the shuffle numpy applies to its result. It
// fills idx (len k).
func (p *pcg64) choice(n int, idx []int) {
	k := len(idx)
	for j := n - k; j < n; j++ {
		v := int(p.bounded(uint32(j)))
		for _, u := range idx[:j-(n-k)] {
			if u == v {
				v = j
				break
			}
		}
		idx[j-(n-k)] = v
	}
	for i := k - 1; i >= 1; i-- {
		j := int(p.bounded(uint32(i)))
		idx[i], idx[j] = idx[j], idx[i]
	}
}
