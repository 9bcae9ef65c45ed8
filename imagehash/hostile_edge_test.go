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

// TestHostileCutVariant: a copy whose right 3% was cut is near its
// original's cut variant at that side (key within CutRadius, ink verified
// by VerifyCut), whether its ink was left at the edge or cropped and
// padded evenly again (margins that do not show the cut: before stop 48
// only a side whose margin was at most half the opposite one's was
// searched, and the second case was missed); another drawing is not
// verified by any side's variant, nor is a lone symbol or a training
// image (no probes); an empty ink has no variants.
func TestHostileCutVariant(t *testing.T) {
	var empty Ink
	if v := empty.CutVariantKeys(); v != [4]uint64{} {
		t.Errorf("empty ink: cut variant keys %v, want none", v)
	}
	g := drawStrokes(4, 3, 5)
	train, err := Compute(g, Options{Canvas: Stretch})
	if err != nil {
		t.Fatal(err)
	}
	vk := train.Ink.CutVariantKeys()
	// The ink spans x 13–368: cut 11 px (3% of its box) off its right.
	atEdge := g.SubImage(image.Rect(g.Rect.Min.X, g.Rect.Min.Y, 368-11, g.Rect.Max.Y)).(*image.Gray)
	x0, y0, x1, y1 := inkBoxOf(g)
	padded := padGray(g.SubImage(image.Rect(x0, y0, x1-11, y1)).(*image.Gray), 13)
	for _, tt := range []struct {
		name string
		img  *image.Gray
	}{
		{"ink at the edge", atEdge},
		{"cropped and padded evenly", padded},
	} {
		q, err := Compute(tt.img, Options{Canvas: Stretch, Probe: true})
		if err != nil {
			t.Fatal(err)
		}
		near := 64
		for _, k := range q.CutKeys() {
			near = min(near, bits.OnesCount64(k^vk[2]))
		}
		if near > CutRadius {
			t.Errorf("%s: query's ink keys %d bits from the right cut variant's, want ≤ %d", tt.name, near, CutRadius)
		}
		if d, ok := VerifyCut(q, train, 2); !ok {
			t.Errorf("%s: VerifyCut at the right: ink distance %.2f, not verified", tt.name, d)
		}
		symbol := q
		symbol.Parts = 1
		if _, ok := VerifyCut(symbol, train, 2); ok {
			t.Errorf("%s: VerifyCut verified a lone symbol", tt.name)
		}
		if keys := symbol.CutKeys(); keys != nil {
			t.Errorf("%s: lone symbol: cut keys %v, want none", tt.name, keys)
		}
	}
	// Another drawing: the strokes mirrored left to right.
	mirror := image.NewGray(g.Rect)
	for y := g.Rect.Min.Y; y < g.Rect.Max.Y; y++ {
		for x := g.Rect.Min.X; x < g.Rect.Max.X; x++ {
			mirror.SetGray(g.Rect.Max.X-1-x+g.Rect.Min.X, y, g.GrayAt(x, y))
		}
	}
	other, err := Compute(mirror, Options{Canvas: Stretch, Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	for side := range 4 {
		if d, ok := VerifyCut(other, train, side); ok {
			t.Errorf("VerifyCut verified the mirrored drawing by side %d's variant (ink distance %.2f)", side, d)
		}
	}
	if keys := train.CutKeys(); keys != nil {
		t.Errorf("training image: cut keys %v, want none", keys)
	}
	if _, ok := VerifyCut(train, train, 2); ok {
		t.Error("VerifyCut verified a training image (no probes) as a query")
	}
}

// inkBoxOf returns the box of g's dark pixels (below 128).
func inkBoxOf(g *image.Gray) (x0, y0, x1, y1 int) {
	x0, y0 = g.Rect.Max.X, g.Rect.Max.Y
	for y := g.Rect.Min.Y; y < g.Rect.Max.Y; y++ {
		for x := g.Rect.Min.X; x < g.Rect.Max.X; x++ {
			if g.GrayAt(x, y).Y < 128 {
				x0, y0 = min(x0, x), min(y0, y)
				x1, y1 = max(x1, x+1), max(y1, y+1)
			}
		}
	}
	return x0, y0, x1, y1
}

// padGray returns g on a white canvas with m pixels of margin at each side.
func padGray(g *image.Gray, m int) *image.Gray {
	b := g.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx()+2*m, b.Dy()+2*m))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.SetGray(x-b.Min.X+m, y-b.Min.Y+m, g.GrayAt(x, y))
		}
	}
	return out
}
