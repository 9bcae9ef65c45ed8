package inkraster

import (
	"image"
	"image/color"
	"testing"
)

// TestHostileCutImage checks the cut of the cut control: at the side
// named, the ink box loses its share and the margin; the other sides keep
// theirs.
func TestHostileCutImage(t *testing.T) {
	// A 100×60 white image with black ink in the box x 10..89, y 20..39
	// (80×20).
	img := image.NewGray(image.Rect(0, 0, 100, 60))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 20; y < 40; y++ {
		for x := 10; x < 90; x++ {
			img.SetGray(x, y, color.Gray{})
		}
	}
	for _, tc := range []struct {
		side  int
		share float64
		w, h  int // the cut image's size
		x, y  int // where the ink box's top-left corner lands
	}{
		{0, 0, 90, 60, 0, 20},     // left: the margin only
		{0, 0.025, 88, 60, 0, 20}, // left: 2 of 80 columns
		{1, 0.03, 100, 39, 10, 0}, // top: 1 of 20 rows (0.6 rounds to 1)
		{2, 0.025, 88, 60, 10, 20},
		{3, 0.01, 100, 40, 10, 20}, // bottom: 0.2 rounds to 0 rows
	} {
		got := CutImage(img, tc.side, tc.share)
		if b := got.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
			t.Errorf("side %d share %.3f: %v, want %d×%d", tc.side, tc.share, b, tc.w, tc.h)
			continue
		}
		if got.GrayAt(tc.x, tc.y).Y != 0 || tc.x > 0 && got.GrayAt(tc.x-1, tc.y).Y != 255 || tc.y > 0 && got.GrayAt(tc.x, tc.y-1).Y != 255 {
			t.Errorf("side %d share %.3f: the ink box does not start at (%d,%d)", tc.side, tc.share, tc.x, tc.y)
		}
	}
	// Without ink the image is kept whole.
	blank := image.NewGray(image.Rect(0, 0, 7, 5))
	if b := CutImage(blank, 2, 0.03).Bounds(); b.Dx() != 7 || b.Dy() != 5 {
		t.Errorf("blank: %v, want 7×5", b)
	}
}

// TestHostileControlCut checks that a cut control's draws are
// deterministic, within range, and cover every side.
func TestHostileControlCut(t *testing.T) {
	sides := map[int]bool{}
	for i := range 200 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		s1, c1 := ControlCut(7, id)
		s2, c2 := ControlCut(7, id)
		if s1 != s2 || c1 != c2 {
			t.Fatalf("%s: draws differ", id)
		}
		if s1 < 0 || s1 > 3 || c1 < 0 || c1 >= MaxCut {
			t.Fatalf("%s: side %d share %v out of range", id, s1, c1)
		}
		sides[s1] = true
	}
	if len(sides) != 4 {
		t.Errorf("sides drawn %v, want all four", sides)
	}
}
