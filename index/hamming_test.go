package index

import (
	"math/bits"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestHammingMatchesLinear compares multi-index search with a linear
// scan on random hashes and on planted near neighbours, at every radius.
func TestHammingMatchesLinear(t *testing.T) {
	for _, n := range []int{20000, 1 << 20} { // four chunks, then three
		testMatchesLinear(t, n)
	}
}

func testMatchesLinear(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(1, 2))
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = r.Uint64()
	}
	base := hashes[:50]
	for i := 0; i < 2000; i++ { // near copies of the first 50
		x := base[i%50]
		for k := r.IntN(12); k > 0; k-- {
			x ^= 1 << r.IntN(64)
		}
		hashes = append(hashes, x)
	}
	ix := NewHamming(hashes)
	for _, radius := range []int{0, 1, 3, 4, 7, 8, 11, 12, 15, 20} {
		for qi := 0; qi < 30; qi++ {
			q := base[qi%50]
			if qi >= 20 {
				q = r.Uint64()
			}
			var got, want []int
			ix.Search(q, radius, func(pos, d int) {
				if d != bits.OnesCount64(hashes[pos]^q) {
					t.Fatalf("wrong distance for %d", pos)
				}
				got = append(got, pos)
			})
			for i, x := range hashes {
				if bits.OnesCount64(x^q) <= radius {
					want = append(want, i)
				}
			}
			sort.Ints(got)
			if len(got) != len(want) {
				t.Fatalf("radius %d query %d: %d results, linear scan %d", radius, qi, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("radius %d query %d: results differ (duplicates?)", radius, qi)
				}
			}
		}
	}
}
