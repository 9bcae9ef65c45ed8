package imagehash

import (
	"image"
	"math"
	"math/bits"
	"testing"
)

// strokes is a made-up handwritten formula, "x+y=2", as polylines in a
// 100×25 box.
var strokes = [][][2]float64{
	{{2, 4}, {14, 22}}, {{14, 4}, {2, 22}}, // x
	{{20, 13}, {32, 13}}, {{26, 7}, {26, 19}}, // +
	{{38, 4}, {44, 13}, {50, 4}}, {{44, 13}, {40, 23}}, // y
	{{56, 10}, {68, 10}}, {{56, 16}, {68, 16}}, // =
	{{74, 7}, {78, 3}, {86, 3}, {88, 8}, {74, 22}, {90, 22}}, // 2
}

// drawStrokes rasterizes strokes with a round pen pen pixels wide, the
// box scaled by s, on a white canvas with a margin of m pixels.
func drawStrokes(s, pen float64, m int) *image.Gray {
	w, h := int(100*s+pen)+2*m, int(25*s+pen)+2*m
	g := image.NewGray(image.Rect(0, 0, w, h))
	off := float64(m) + pen/2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			ink := false
			for _, l := range strokes {
				for i := 1; i < len(l) && !ink; i++ {
					ax, ay := off+s*l[i-1][0], off+s*l[i-1][1]
					bx, by := off+s*l[i][0], off+s*l[i][1]
					dx, dy := bx-ax, by-ay
					u := math.Max(0, math.Min(1, ((px-ax)*dx+(py-ay)*dy)/(dx*dx+dy*dy)))
					ink = math.Hypot(px-ax-u*dx, py-ay-u*dy) <= pen/2
				}
			}
			if !ink {
				g.Pix[y*g.Stride+x] = 255
			}
		}
	}
	return g
}

// TestHostileThickPen: the same strokes drawn with a pen thicker than the
// common one (relative to the ink box) are hashed as the thin original:
// within the default radius and verified. A thick pen is thinned to the
// common pen, and the strokes' own box, not the ink box with the pen,
// fills the canvas.
func TestHostileThickPen(t *testing.T) {
	o := Options{Canvas: Stretch}
	q := o
	q.Probe = true
	orig, err := Compute(drawStrokes(6, 3, 10), o) // 600×150, a 3 px pen
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		s, pen   float64
		maxPHash int
	}{
		{"thin, the same size", 6, 2, 8},
		{"pen 4 on a 25 px high box", 1, 4, 8},
		{"pen 5 on a 50 px high box", 2, 5, 8},
		{"pen 12 on a 100 px high box", 4, 12, 8},
	}
	for _, tt := range tests {
		h, err := Compute(drawStrokes(tt.s, tt.pen, 5), q)
		if err != nil {
			t.Fatal(err)
		}
		d := bits.OnesCount64(h.Hash ^ orig.Hash)
		for _, p := range h.Probes {
			d = min(d, bits.OnesCount64(p.Hash^orig.Hash))
		}
		fine, ok := Verify(h, orig)
		t.Logf("%s: pHash %d, fine %d, ink %.2f, verified %v", tt.name, d, fine, InkDistance(h, orig), ok)
		if d > tt.maxPHash {
			t.Errorf("%s: pHash distance %d, want ≤ %d", tt.name, d, tt.maxPHash)
		}
		if !ok {
			t.Errorf("%s: not verified (fine %d, ink %.2f)", tt.name, fine, InkDistance(h, orig))
		}
	}
}
