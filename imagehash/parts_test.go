package imagehash

import (
	"image"
	"testing"
)

// canvasWith draws dark boxes (x0, y0, x1, y1) on a white w×h image.
func canvasWith(w, h int, boxes ...[4]int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	for _, b := range boxes {
		for y := b[1]; y < b[3]; y++ {
			for x := b[0]; x < b[2]; x++ {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	return g
}

// TestPartsOfAQuery checks Fingerprint.Parts, which decides whether a
// query is verified as a lone symbol: a compact piece of ink is one, two
// pieces are two, and one piece much wider than high (a formula whose
// symbols a thick pen joined) is not taken for a lone symbol.
func TestPartsOfAQuery(t *testing.T) {
	tests := []struct {
		name string
		img  *image.Gray
		want int
	}{
		{"a compact symbol", canvasWith(60, 60, [4]int{10, 10, 50, 16}, [4]int{27, 10, 33, 50}), 1},
		{"two pieces", canvasWith(100, 60, [4]int{10, 10, 40, 50}, [4]int{60, 10, 90, 50}), 2},
		{"a tall piece", canvasWith(60, 200, [4]int{25, 10, 35, 190}), 1},
		{"a joined formula, four times as wide as high", canvasWith(260, 60,
			[4]int{10, 10, 250, 18}, [4]int{10, 10, 18, 50}, [4]int{120, 10, 128, 50}, [4]int{242, 10, 250, 50}), 2},
	}
	for _, tt := range tests {
		fp, err := Compute(tt.img, Options{Kind: PHash, Canvas: Stretch, Probe: true})
		if err != nil {
			t.Fatal(err)
		}
		if fp.Parts != tt.want {
			t.Errorf("%s: Parts %d, want %d", tt.name, fp.Parts, tt.want)
		}
	}
}
