package cdm

import "strings"

// strictChecks applies the Strict profile's extra rejections to accepted
// pairs: the size check and the order check (docs/cdm.md §12).
func strictChecks(r *Result, g, p boxed) {
	for k, mt := range r.Matches {
		if !mt.Accepted || !sizedToken(g.tok[mt.G]) {
			continue
		}
		hg := g.box[mt.G][3] - g.box[mt.G][1]
		hp := p.box[mt.P][3] - p.box[mt.P][1]
		if hg > 0 && (hp/hg < 0.8 || hp/hg > 1.25) {
			r.Matches[k].Accepted, r.Matches[k].Reason = false, "size"
		}
	}
	// Order: within a band of pairs whose GT boxes and pred boxes overlap
	// vertically, pred x-centres must increase with GT x-centres; pairs
	// outside a longest increasing run are rejected.
	var acc []int
	for k, mt := range r.Matches {
		if mt.Accepted {
			acc = append(acc, k)
		}
	}
	sameBand := func(a, b int) bool {
		ma, mb := r.Matches[a], r.Matches[b]
		return overlap(g.box[ma.G], g.box[mb.G]) && overlap(p.box[ma.P], p.box[mb.P])
	}
	seen := map[int]bool{}
	for _, k := range acc {
		if seen[k] {
			continue
		}
		band := []int{k}
		seen[k] = true
		for i := 0; i < len(band); i++ {
			for _, j := range acc {
				if !seen[j] && sameBand(band[i], j) {
					seen[j] = true
					band = append(band, j)
				}
			}
		}
		if len(band) < 2 {
			continue
		}
		// sort the band by GT x-centre
		cx := func(b [4]float64) float64 { return (b[0] + b[2]) / 2 }
		for i := 1; i < len(band); i++ {
			for j := i; j > 0 && cx(g.box[r.Matches[band[j]].G]) < cx(g.box[r.Matches[band[j-1]].G]); j-- {
				band[j], band[j-1] = band[j-1], band[j]
			}
		}
		xs := make([]float64, len(band))
		for i, k := range band {
			xs[i] = cx(p.box[r.Matches[k].P])
		}
		keep := lis(xs)
		for i, k := range band {
			if !keep[i] {
				r.Matches[k].Accepted, r.Matches[k].Reason = false, "order"
			}
		}
	}
}

// overlap reports vertical overlap of at least half the smaller height.
func overlap(a, b [4]float64) bool {
	lo, hi := max(a[1], b[1]), min(a[3], b[3])
	h := min(a[3]-a[1], b[3]-b[1])
	return h > 0 && hi-lo >= 0.5*h
}

// lis marks a longest strictly increasing subsequence of xs.
func lis(xs []float64) []bool {
	n := len(xs)
	length := make([]int, n)
	prev := make([]int, n)
	best := -1
	for i := range n {
		length[i], prev[i] = 1, -1
		for j := range i {
			if xs[j] < xs[i] && length[j]+1 > length[i] {
				length[i], prev[i] = length[j]+1, j
			}
		}
		if best < 0 || length[i] > length[best] {
			best = i
		}
	}
	keep := make([]bool, n)
	for i := best; i >= 0; i = prev[i] {
		keep[i] = true
	}
	return keep
}

// sizedToken reports whether a token is a glyph of fixed size (letters,
// digits, operators, relations), whose box height must not change
// between two renders at one size.
func sizedToken(t string) bool {
	if len(t) == 1 {
		return strings.ContainsAny(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-=<>*/")
	}
	switch {
	case strings.HasPrefix(t, `\left`), strings.HasPrefix(t, `\right`), strings.HasPrefix(t, `\big`), strings.HasPrefix(t, `\Big`),
		t == `\frac`, t == `\sqrt`, strings.Contains(t, "line"), strings.Contains(t, "brace"):
		return false
	}
	return strings.HasPrefix(t, `\`)
}
