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
