package dedup

import "testing"

// TestSeqSet checks the removed-seq bit set against the map it is made
// from, around word boundaries.
func TestSeqSet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		removed []int64
	}{
		{"none", nil},
		{"first", []int64{0}},
		{"word ends", []int64{63, 64, 127}},
		{"sparse", []int64{1, 200, 5000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rm := map[int64]*Removed{}
			for _, s := range tc.removed {
				rm[s] = &Removed{Seq: s}
			}
			set := newSeqSet(rm)
			for seq := int64(0); seq < 6000; seq++ {
				if got, want := set.keep(seq), rm[seq] == nil; got != want {
					t.Fatalf("keep(%d) = %v, want %v", seq, got, want)
				}
			}
		})
	}
}
