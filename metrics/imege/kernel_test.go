package imege

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The sums of squared differences the search uses (assembly on amd64)
// equal the plain Go ones exactly.
func TestRowsSSDMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	for range 2000 {
		n := 1 + r.IntN(80)
		rows := 1 + r.IntN(6)
		as, bs := n+r.IntN(9), n+r.IntN(9)
		a := make([]int16, (rows-1)*as+n)
		b := make([]int16, (rows-1)*bs+n)
		for k := range a {
			a[k] = int16(r.IntN(256) - 127)
		}
		for k := range b {
			b[k] = int16(r.IntN(256) - 127)
		}
		if got, want := rowsSSD(a, b, n, as, bs, rows), rowsSSDGo(a, b, n, as, bs, rows); got != want {
			t.Fatalf("n %d rows %d: %d, Go %d", n, rows, got, want)
		}
	}
}

// randomBlocks makes a level's test blocks and a statistics table they
// index from base.
func randomBlocks(r *rand.Rand) (bs []tblock, st []stat4, base int) {
	nb := 1 + r.IntN(40)
	st = make([]stat4, 64+r.IntN(64))
	for k := range st {
		for q := range st[k] {
			st[k][q] = float32(r.NormFloat64() * 300)
		}
	}
	base = r.IntN(32)
	for k := range nb {
		var tb tblock
		for q := range tb.t {
			tb.t[q] = float32(r.NormFloat64() * 300)
		}
		tb.off = int32(r.IntN(len(st) - base))
		tb.part = int32(k)
		bs = append(bs, tb)
	}
	r.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
	return bs, st, base
}

// close reports whether two single-precision sums of the same
// nonnegative terms agree to their rounding.
func close32(a, b float32) bool {
	return math.Abs(float64(a)-float64(b)) <= 1e-5*math.Max(float64(a), float64(b))
}

// The level bounds (assembly on amd64) sum the plain Go ones' terms, in
// another order: the same sums to rounding, cut short on the same side of
// the limit unless the sum is within rounding of it.
func TestBoundsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 19))
	for range 2000 {
		bs, st, base := randomBlocks(r)
		full := boundGo(bs, st, base, math.MaxFloat32)
		if got := bound(bs, st, base, math.MaxFloat32); !close32(got, full) {
			t.Fatalf("bound %g, Go %g", got, full)
		}
		want := make([]float32, len(bs))
		got := make([]float32, len(bs))
		if g, w := boundParts(bs, st, base, math.MaxFloat32, got), boundPartsGo(bs, st, base, math.MaxFloat32, want); !close32(g, w) {
			t.Fatalf("boundParts %g, Go %g", g, w)
		}
		for k := range want {
			if !close32(got[k], want[k]) {
				t.Fatalf("part %d: %g, Go %g", k, got[k], want[k])
			}
		}
		f := full * float32(r.Float64()*1.2)
		if close32(f, full) {
			continue
		}
		if g, w := bound(bs, st, base, f) > f, boundGo(bs, st, base, f) > f; g != w {
			t.Fatalf("bound over %g: %v, Go %v (full %g)", f, g, w, full)
		}
		if g, w := boundParts(bs, st, base, f, got) > f, boundPartsGo(bs, st, base, f, want) > f; g != w {
			t.Fatalf("boundParts over %g: %v, Go %v (full %g)", f, g, w, full)
		}
	}
}

// The row scan (assembly on amd64) keeps the candidates the plain Go one
// keeps, but for bounds within rounding of the limit.
func TestScanRowMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 19))
	for range 1000 {
		mid, st, _ := randomBlocks(r)
		if r.IntN(4) == 0 {
			mid = nil
		}
		var t0 stat4
		for q := range t0 {
			t0[q] = float32(r.NormFloat64() * 300)
		}
		n := 1 + r.IntN(len(st)/4)
		maxOff := 0
		for _, b := range mid {
			maxOff = max(maxOff, int(b.off))
		}
		off0 := r.IntN(8)
		if m := len(st) - n - max(maxOff, off0); m > 0 {
			maxOff = max(maxOff, off0)
		} else {
			continue
		}
		c0 := r.IntN(len(st) - n - maxOff + 1)
		full := func(k int) (float32, float32) {
			return boundGo([]tblock{{t: t0, off: int32(off0)}}, st, c0+k, math.MaxFloat32), boundGo(mid, st, c0+k, math.MaxFloat32)
		}
		a, b := full(r.IntN(n))
		f := max(a, b) * float32(0.5+r.Float64())
		got := make([]int32, n)
		want := make([]int32, n)
		ng, nw := scanRow(st, c0, n, off0, &t0, mid, f, got), scanRowGo(st, c0, n, off0, &t0, mid, f, want)
		kept := map[int32]bool{}
		for _, k := range got[:ng] {
			kept[k] = true
		}
		inGo := map[int32]bool{}
		for _, k := range want[:nw] {
			inGo[k] = true
		}
		for k := range int32(n) {
			if kept[k] == inGo[k] {
				continue
			}
			if a, b := full(int(k)); !close32(a, f) && !close32(b, f) {
				t.Fatalf("candidate %d (bounds %g, %g, limit %g): kept %v, Go %v", k, a, b, f, kept[k], inGo[k])
			}
		}
	}
}
