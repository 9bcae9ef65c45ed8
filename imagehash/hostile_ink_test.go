package imagehash

import (
	"image"
	"math"
	"testing"
)

// moved returns formula() with one stroke drawn elsewhere: the same
// formula, another hand.
func moved() *image.Gray {
	g := formula()
	for y := 20; y < 60; y++ {
		for x := 20; x < 24; x++ {
			g.Pix[y*g.Stride+x] = 255
		}
	}
	for y := 10; y < 70; y++ {
		for x := 8; x < 12; x++ {
			g.Pix[y*g.Stride+x] = 0
		}
	}
	return g
}

// TestHostileInk: the normalized ink is stored and read back exactly; the
// chamfer distance is 0 for an image against itself, small for a copy
// rescaled, padded or inverted, larger for a stroke moved, and +Inf
// without ink; and Verify falls back to the fine hash alone when a side
// has no ink bitmap (hashes of an older version).
func TestHostileInk(t *testing.T) {
	o := Options{Canvas: Stretch}
	q := o
	q.Probe = true
	hash := func(img image.Image, o Options) Hashes {
		t.Helper()
		h, err := Compute(img, o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	orig := hash(formula(), o)
	if orig.Ink.IsZero() {
		t.Fatal("no ink bitmap")
	}
	back, ok := InkFromBytes(orig.Ink.Bytes())
	if !ok || back != orig.Ink {
		t.Errorf("ink read back %v (%v), want the same bitmap", back == orig.Ink, ok)
	}
	if _, ok := InkFromBytes(orig.Ink.Bytes()[1:]); ok {
		t.Error("a short ink bitmap was read")
	}
	copies := []struct {
		name string
		img  image.Image
	}{
		{"itself", formula()},
		{"rescaled 50%", scale(formula(), 0.5, 0.5)},
		{"padded and inverted", invert(pad(formula(), 20, 255))},
		{"stretched", scale(formula(), 1.3, 0.8)},
	}
	for _, c := range copies {
		qh := hash(c.img, q)
		if d := InkDistance(qh, orig); d > VerifyInk {
			t.Errorf("%s: ink distance %.3f, want ≤ %.1f", c.name, d, VerifyInk)
		}
		if _, ok := Verify(qh, orig); !ok {
			t.Errorf("%s: not verified", c.name)
		}
	}
	if d := InkDistance(hash(formula(), q), orig); d != 0 {
		t.Errorf("itself: ink distance %.3f, want 0", d)
	}
	if d := InkDistance(hash(moved(), q), orig); d <= VerifyInk {
		t.Errorf("a stroke moved: ink distance %.3f, want > %.1f", d, VerifyInk)
	}
	var old Hashes = orig
	old.Ink = Ink{}
	if d := InkDistance(old, orig); !math.IsInf(d, 1) {
		t.Errorf("without ink: distance %v, want +Inf", d)
	}
	other := hash(moved(), q)
	fine := FineDistance(other, old)
	if _, ok := Verify(other, old); ok != (fine <= VerifyDistance) {
		t.Errorf("without ink: verified %v at fine distance %d, want the fine hash's verdict", ok, fine)
	}
}
