package imagehash

import (
	"image"
	"math/bits"
	"testing"
)

// TestHostileEdgeKey: the edge key is 0 without ink; ink changed only in
// the band it leaves out (a cut at an edge) keeps the key; the same ink
// moved inside the window changes it; a query's edge keys are those of its
// ink and probes, none for a lone symbol, a training image or a query
// whose ink reaches no edge of its image; and
// VerifyEdge never verifies by the fine hash alone nor a lone symbol.
func TestHostileEdgeKey(t *testing.T) {
	var empty Ink
	if k := empty.EdgeKey(); k != 0 {
		t.Errorf("empty ink: edge key %#x, want 0", k)
	}
	q := Options{Canvas: Stretch, Probe: true}
	fp, err := Compute(drawStrokes(4, 3, 5), q)
	if err != nil {
		t.Fatal(err)
	}
	base := fp.Ink.EdgeKey()
	if base == 0 {
		t.Fatal("the formula's edge key is 0")
	}
	band := fp.Ink
	for y := range band {
		band[y] &^= 1<<EdgeMargin - 1 // the left band cleared: ink cut at the left edge
	}
	band[InkSide-1] = 0 // the bottom row cleared
	band[0] = ^uint64(0)
	moved := fp.Ink
	for y := range moved {
		moved[y] = moved[y]<<12 | moved[y]>>52
	}
	tests := []struct {
		name string
		ink  Ink
		same bool // the key must be base; else at least 4 bits from it
	}{
		{"itself", fp.Ink, true},
		{"ink changed in the band", band, true},
		{"ink moved 12 px inside", moved, false},
	}
	for _, tt := range tests {
		d := bits.OnesCount64(tt.ink.EdgeKey() ^ base)
		if tt.same && d != 0 || !tt.same && d < 4 {
			t.Errorf("%s: edge key %d bits from the formula's", tt.name, d)
		}
	}
	if fp.AtEdge {
		t.Error("a formula drawn 5 px from every edge: AtEdge set")
	}
	if keys := fp.EdgeKeys(); keys != nil {
		t.Errorf("query whose ink reaches no edge: edge keys %v, want none", keys)
	}
	// The same drawing with 16 px cut off its left side (its ink begins at
	// about 13): its ink runs off
	// that edge.
	g := drawStrokes(4, 3, 5)
	cut, err := Compute(g.SubImage(image.Rect(g.Rect.Min.X+16, g.Rect.Min.Y, g.Rect.Max.X, g.Rect.Max.Y)), q)
	if err != nil {
		t.Fatal(err)
	}
	if !cut.AtEdge {
		t.Error("ink cut at the left edge: AtEdge not set")
	}
	if keys := cut.EdgeKeys(); len(keys) != 1+NumProbes || keys[0] != cut.Ink.EdgeKey() {
		t.Errorf("cut query: %d edge keys; want %d, the first its ink's", len(keys), 1+NumProbes)
	}
	fp.AtEdge = true // as the cut query, for the checks below
	if keys := fp.EdgeKeys(); len(keys) != 1+NumProbes || keys[0] != base {
		t.Errorf("query: %d edge keys, first %#x; want %d, the first %#x", len(keys), keys[0], 1+NumProbes, base)
	}
	train, err := Compute(drawStrokes(4, 3, 5), Options{Canvas: Stretch})
	if err != nil {
		t.Fatal(err)
	}
	if keys := train.EdgeKeys(); keys != nil {
		t.Errorf("training image: edge keys %v, want none", keys)
	}
	symbol := fp
	symbol.Parts = 1
	if keys := symbol.EdgeKeys(); keys != nil {
		t.Errorf("lone symbol: edge keys %v, want none", keys)
	}
	if _, ok := VerifyEdge(fp, train); !ok {
		t.Error("VerifyEdge: the image against itself is not verified")
	}
	other := train
	other.Digest[0] ^= 1
	if _, ok := VerifyEdge(symbol, other); ok {
		t.Error("VerifyEdge verified a lone symbol")
	}
	noInk := other
	noInk.Ink = Ink{}
	if d, ok := VerifyEdge(fp, noInk); ok {
		t.Errorf("VerifyEdge verified a pair without ink by its fine distance %d", d)
	}
}

// TestHostileCutVariant: a query may have been cut at a side where its ink
// reaches the edge or its margin is at most half the opposite one
// (CutSides); a copy whose right 3% was cut is near its original's cut
// variant at that side (key within CutRadius, ink verified by VerifyCut),
// but not verified against the variant of a side it could not have been
// cut at, nor as a lone symbol; and an empty ink has no variants.
func TestHostileCutVariant(t *testing.T) {
	sides := []struct {
		margins [4]int
		want    uint8
	}{
		{[4]int{12, 12, 11, 11}, 0},          // the CROHME bitmaps' margins
		{[4]int{27, 27, 0, 10}, 1<<2 | 1<<3}, // cut at the right: the box pushed there
		{[4]int{0, 0, 0, 0}, 0b1111},         // cropped to the ink
		{[4]int{10, 4, 20, 9}, 1<<0 | 1<<1},  // nearer the left and the top
		{[4]int{5, 30, 5, 31}, 0},            // equal margins: at neither side
	}
	for _, tt := range sides {
		if got := cutSides(tt.margins); got != tt.want {
			t.Errorf("cutSides(%v) = %04b, want %04b", tt.margins, got, tt.want)
		}
	}
	var empty Ink
	if v := empty.CutVariantKeys(); v != [4]uint64{} {
		t.Errorf("empty ink: cut variant keys %v, want none", v)
	}
	g := drawStrokes(4, 3, 5)
	train, err := Compute(g, Options{Canvas: Stretch})
	if err != nil {
		t.Fatal(err)
	}
	// The ink spans x 13–368: cut 11 px (3% of its box) off its right.
	cut := g.SubImage(image.Rect(g.Rect.Min.X, g.Rect.Min.Y, 368-11, g.Rect.Max.Y)).(*image.Gray)
	q, err := Compute(cut, Options{Canvas: Stretch, Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	if q.CutSides != 1<<2 {
		t.Fatalf("query cut at the right: CutSides %04b, want %04b", q.CutSides, 1<<2)
	}
	vk := train.Ink.CutVariantKeys()
	near := 64
	for _, k := range q.CutKeys() {
		near = min(near, bits.OnesCount64(k^vk[2]))
	}
	if near > CutRadius {
		t.Errorf("query's ink keys %d bits from the right cut variant's, want ≤ %d", near, CutRadius)
	}
	if d, ok := VerifyCut(q, train, 2); !ok {
		t.Errorf("VerifyCut at the right: ink distance %.2f, not verified", d)
	}
	if _, ok := VerifyCut(q, train, 0); ok {
		t.Error("VerifyCut verified the left cut variant of a query whose left margin is its widest")
	}
	symbol := q
	symbol.Parts = 1
	if _, ok := VerifyCut(symbol, train, 2); ok {
		t.Error("VerifyCut verified a lone symbol")
	}
	if keys := symbol.CutKeys(); keys != nil {
		t.Errorf("lone symbol: cut keys %v, want none", keys)
	}
	if keys := train.CutKeys(); keys != nil {
		t.Errorf("training image: cut keys %v, want none", keys)
	}
}
