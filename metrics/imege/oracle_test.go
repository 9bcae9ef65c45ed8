package imege

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// oracleWarp is the warp map as metrics-spec §8.2 describes the original's
// search, with nothing skipped: every candidate in the original's order,
// each distance summed term by term in single precision and cut short once
// it reaches the minimum so far, and the distance of the last candidate
// tried stored. Out-of-image features are the flat 127. It is slow
// (every candidate's context) and is the reference the fast search in
// bidm.go is checked against.
func oracleWarp(tf, rf *features, p Params) ([]float32, float32) {
	I, J, X, Y := tf.w, tf.h, rf.w, rf.h
	feat := func(f *features, x, y int) (int32, int32) {
		if x < 0 || y < 0 || x >= f.w || y >= f.h {
			return 127, 127
		}
		return f.dh[y*f.w+x], f.dv[y*f.w+x]
	}
	hc := p.Context / 2
	dist := func(i, j, x, y int, min float32) float32 {
		var d float32
		for m := -hc; m <= hc && d < min; m++ {
			for n := -hc; n <= hc && d < min; n++ {
				ha, va := feat(tf, i+n, j+m)
				hb, vb := feat(rf, x+n, y+m)
				t := float64((ha-hb)*(ha-hb)+(va-vb)*(va-vb)) * (1.0 / 65025)
				d = float32(float64(d) + t)
			}
		}
		return d
	}
	xi := float32(X) / float32(I)
	yj := float32(Y) / float32(J)
	warp := make([]float32, I*J)
	var mx float32
	step := 1 + p.Interp
	for j := 0; j < J; j += step {
		for i := 0; i < I; i += step {
			ip := int(float64(float32(i)*xi) + 0.5)
			jp := int(float64(float32(j)*yj) + 0.5)
			min := float32(math.MaxFloat32)
			d := dist(i, j, ip, jp, min)
			if d < min {
				min = d
			}
			for x := ip - p.Warp; x <= ip+p.Warp && min != 0; x++ {
				if x < 0 || x >= X {
					continue
				}
				for y := jp - p.Warp; y <= jp+p.Warp && min != 0; y++ {
					if y < 0 || y >= Y {
						continue
					}
					d = dist(i, j, x, y, min)
					if d < min {
						min = d
					}
				}
			}
			warp[j*I+i] = d
			mx = max(mx, d)
		}
	}
	return warp, mx
}

// randomFeatures makes derivative planes for the oracle test: mostly the
// flat 127, with patches of values drawn from a few levels (so that
// windows repeat, tie and match exactly) or from the whole range.
func randomFeatures(r *rand.Rand, w, h int) *features {
	f := &features{w: w, h: h, dh: make([]int32, w*h), dv: make([]int32, w*h)}
	for k := range f.dh {
		f.dh[k], f.dv[k] = 127, 127
	}
	levels := []int32{0, 60, 127, 200, 255}
	full := r.IntN(3) == 0
	val := func() int32 {
		if full {
			return r.Int32N(256)
		}
		return levels[r.IntN(len(levels))]
	}
	for range r.IntN(1 + w*h/8) {
		x, y := r.IntN(w), r.IntN(h)
		pw, ph := 1+r.IntN(4), 1+r.IntN(4)
		a, b := val(), val()
		for yy := y; yy < min(h, y+ph); yy++ {
			for xx := x; xx < min(w, x+pw); xx++ {
				f.dh[yy*w+xx], f.dv[yy*w+xx] = a, b
			}
		}
	}
	return f
}

// nearTies makes a test plane with dense full-range features and a
// reference holding several copies of it at small offsets, each with a
// blank patch (so that every copy is far from the test, by nearly the
// same large distance) and a few features changed by one or two levels:
// the copies' exact distances differ by little, and their single-precision
// sums may order them differently.
func nearTies(r *rand.Rand) (tf, rf *features) {
	w, h := 20+r.IntN(8), 20+r.IntN(8)
	tf = &features{w: w, h: h, dh: make([]int32, w*h), dv: make([]int32, w*h)}
	for k := range tf.dh {
		tf.dh[k], tf.dv[k] = r.Int32N(256), r.Int32N(256)
	}
	rf = &features{w: w, h: h, dh: make([]int32, w*h), dv: make([]int32, w*h)}
	copy(rf.dh, tf.dh)
	copy(rf.dv, tf.dv)
	bx, by := r.IntN(w-6), r.IntN(h-6)
	for y := by; y < by+6; y++ {
		for x := bx; x < bx+6; x++ {
			rf.dh[y*w+x], rf.dv[y*w+x] = 127, 127
		}
	}
	for range r.IntN(12) {
		k := r.IntN(w * h)
		rf.dh[k] = min(255, max(0, rf.dh[k]+r.Int32N(5)-2))
	}
	// Shifted copies: every candidate near the direct mapping sees the
	// same pattern (up to the shift) and the same blank patch.
	if r.IntN(2) == 0 {
		for y := h - 1; y >= 1; y-- {
			for x := w - 1; x >= 1; x-- {
				if r.IntN(3) == 0 {
					rf.dh[y*w+x], rf.dv[y*w+x] = rf.dh[(y-1)*w+x-1], rf.dv[(y-1)*w+x-1]
				}
			}
		}
	}
	return tf, rf
}

// The fast search gives the oracle's warp map bit for bit on random
// planes, sizes and parameters.
func TestWarpMapMatchesOracle(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewPCG(19, 2013))
	for k := range n {
		tw, th := 1+r.IntN(24), 1+r.IntN(24)
		rw, rh := 1+r.IntN(24), 1+r.IntN(24)
		if r.IntN(2) == 0 { // similar sizes, as a recognition and its reference
			rw, rh = max(1, tw+r.IntN(7)-3), max(1, th+r.IntN(7)-3)
		}
		tf := randomFeatures(r, tw, th)
		rf := randomFeatures(r, rw, rh)
		if r.IntN(4) == 0 { // the reference a shifted copy of the test
			dx, dy := r.IntN(5)-2, r.IntN(5)-2
			rf = &features{w: tw, h: th, dh: make([]int32, tw*th), dv: make([]int32, tw*th)}
			for y := range th {
				for x := range tw {
					sx, sy := x+dx, y+dy
					rf.dh[y*tw+x], rf.dv[y*tw+x] = 127, 127
					if sx >= 0 && sy >= 0 && sx < tw && sy < th {
						rf.dh[y*tw+x], rf.dv[y*tw+x] = tf.dh[sy*tw+sx], tf.dv[sy*tw+sx]
					}
				}
			}
		}
		p := Params{Warp: 1 + r.IntN(7), Context: 1 + 2*r.IntN(7), Interp: r.IntN(3), Size: 3}
		if k%8 == 7 { // near-ties that single precision may order differently
			tf, rf = nearTies(r)
			p = Params{Warp: 4 + r.IntN(4), Context: 21 + 2*r.IntN(6), Interp: 2, Size: 3}
			tw, th, rw, rh = tf.w, tf.h, rf.w, rf.h
		}
		checkWarp(t, fmt.Sprintf("case %d: %d×%d vs %d×%d %+v", k, tw, th, rw, rh, p), tf, rf, p)
	}
}

// checkWarp compares the fast warp map of tf against rf with the
// oracle's, bit for bit: the maximum and every pixel the search computes
// (one in 1+Interp along each axis; the others are interpolated).
func checkWarp(t *testing.T, name string, tf, rf *features, p Params) {
	t.Helper()
	want, wmx := oracleWarp(tf, rf, p)
	got, gmx := warpMap(tf, rf, p)
	if math.Float32bits(gmx) != math.Float32bits(wmx) {
		t.Errorf("%s: max %g, oracle %g", name, gmx, wmx)
	}
	step := 1 + p.Interp
	bad := 0
	for j := 0; j < tf.h; j += step {
		for i := 0; i < tf.w; i += step {
			g, w := got[j*tf.w+i], want[j*tf.w+i]
			if math.Float32bits(g) != math.Float32bits(w) {
				if bad < 3 {
					t.Errorf("%s: pixel (%d, %d) %g, oracle %g", name, i, j, g, w)
				}
				bad++
			}
		}
	}
}

// The same on the example pair's own features, on a band of rows, with the
// default context and a smaller warp (the oracle is slow).
func TestWarpMapMatchesOracleExample(t *testing.T) {
	if testing.Short() {
		t.Skip("oracle on real features: seconds")
	}
	rec, ref := example(t)
	for _, pair := range [][2]*Image{{rec, ref}, {ref, rec}} {
		tf, rf := derive(pair[0], 3), derive(pair[1], 3)
		// Rows 27…44 of the test only (the formula's middle), against the
		// whole reference.
		band := &features{w: tf.w, h: 18, dh: tf.dh[27*tf.w : 45*tf.w], dv: tf.dv[27*tf.w : 45*tf.w]}
		p := Params{Warp: 8, Context: 31, Interp: 2, Size: 3}
		want, _ := oracleWarp(band, rf, p)
		got, _ := warpMap(band, rf, p)
		for k := range want {
			if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
				t.Fatalf("pixel %d: %g, oracle %g", k, got[k], want[k])
			}
		}
	}
}
