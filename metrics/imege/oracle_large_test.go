package imege

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The fast search gives the oracle's warp map bit for bit at the released
// context (31) on random planes of formula-like sizes, where the level
// bounds' blocks, the row scan and the band sums all take part.
func TestWarpMapMatchesOracleLarge(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 3
	}
	r := rand.New(rand.NewPCG(31, 2013))
	for k := range n {
		tw, th := 30+r.IntN(40), 20+r.IntN(20)
		rw, rh := max(1, tw+r.IntN(15)-7), max(1, th+r.IntN(9)-4)
		tf, rf := randomFeatures(r, tw, th), randomFeatures(r, rw, rh)
		p := Params{Warp: 4 + r.IntN(8), Context: 31, Interp: 2, Size: 3}
		checkWarp(t, fmt.Sprintf("case %d: %d×%d vs %d×%d %+v", k, tw, th, rw, rh, p), tf, rf, p)
	}
}
