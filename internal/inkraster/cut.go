package inkraster

import (
	"hash/fnv"
	"image"
	"math"
	"math/rand/v2"
	"sort"
)

// MaxCut is the largest share of the ink box a cut takes (the issue's
// range: ink cut at the edge by up to 3% of its box).
const MaxCut = 0.03

// ControlCut draws the cut of one item of a cut control from a seed and
// the item's id: a side (0 left, 1 top, 2 right, 3 bottom) and a share of
// the ink box in [0, MaxCut). The draw depends on the seed and the id
// only, not on the order in which items are visited.
func ControlCut(seed uint64, id string) (side int, share float64) {
	h := fnv.New64a()
	h.Write([]byte(id))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	return rng.IntN(4), MaxCut * rng.Float64()
}

// CutImage returns a copy of img cropped at side (0 left, 1 top, 2 right,
// 3 bottom) so that share of its ink box's extent across that side is
// lost and no margin is left there (share 0 only removes the margin); the
// other sides keep their margins. Ink is a pixel whose luminance differs
// from the median of the image's border by more than an eighth of the
// range, so that faint anti-aliased ink counts. An image without ink is
// returned as a grey copy, uncropped.
func CutImage(img image.Image, side int, share float64) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			g.Set(x, y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return g
	}
	var border []int
	for x := range w {
		border = append(border, int(g.GrayAt(x, 0).Y), int(g.GrayAt(x, h-1).Y))
	}
	for y := range h {
		border = append(border, int(g.GrayAt(0, y).Y), int(g.GrayAt(w-1, y).Y))
	}
	sort.Ints(border)
	ground := border[len(border)/2]
	x0, y0, x1, y1 := w, h, -1, -1 // the ink box, inclusive
	for y := range h {
		for x := range w {
			if d := int(g.GrayAt(x, y).Y) - ground; d > 32 || d < -32 {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return g
	}
	r := image.Rect(0, 0, w, h)
	lost := func(extent int) int { return int(math.Round(share * float64(extent))) }
	switch side {
	case 0:
		r.Min.X = x0 + lost(x1-x0+1)
	case 1:
		r.Min.Y = y0 + lost(y1-y0+1)
	case 2:
		r.Max.X = x1 + 1 - lost(x1-x0+1)
	default:
		r.Max.Y = y1 + 1 - lost(y1-y0+1)
	}
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(out.Pix[y*out.Stride:y*out.Stride+r.Dx()], g.Pix[(r.Min.Y+y)*g.Stride+r.Min.X:])
	}
	return out
}
