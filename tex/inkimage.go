package tex

import (
	"image"
	"image/color"
	"math"
)

// InkImage draws the layout in black on white at dpi dots per inch, 8 px
// around the ink: each rule is its rectangle, each glyph the bounding box
// of its outline (AFM) striped by a pattern of its character, so that
// different symbols in one place draw differently. It is not a glyph
// rasterizer (outlines are not drawn), but it is deterministic and puts
// every mark where pdflatex puts the glyph, which is what image
// fingerprints and position checks need. Nil when there is no ink.
func (l *Layout) InkImage(dpi float64) *image.Gray {
	var boxes []InkBox
	var stripes []int // per box: 0 solid, else the number of bars
	for i := range l.Glyphs {
		if b, ok := glyphInk(&l.Glyphs[i]); ok {
			boxes = append(boxes, b)
			stripes = append(stripes, 1+l.Glyphs[i].Char%4)
		}
	}
	for _, r := range l.Rules {
		boxes = append(boxes, InkBox{X0: r.X, Y0: r.Y - r.Height, X1: r.X + r.Width, Y1: r.Y})
		stripes = append(stripes, 0)
	}
	if len(boxes) == 0 {
		return nil
	}
	all := boxes[0]
	for _, b := range boxes[1:] {
		all.union(b)
	}
	s := dpi / 72.27
	px := func(v Scaled) float64 { return v.Pt() * s }
	x0, y0 := math.Floor(px(all.X0))-8, math.Floor(px(all.Y0))-8
	w := int(math.Ceil(px(all.X1))-x0) + 8
	h := int(math.Ceil(px(all.Y1))-y0) + 8
	if w <= 0 || h <= 0 || w*h > 40_000_000 {
		return nil
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for i, b := range boxes {
		ax, ay := int(math.Floor(px(b.X0)-x0)), int(math.Floor(px(b.Y0)-y0))
		bx, by := int(math.Ceil(px(b.X1)-x0)), int(math.Ceil(px(b.Y1)-y0))
		n := stripes[i]
		for y := max(ay, 0); y < min(by, h); y++ {
			// n dark bars separated by n−1 gaps (2n−1 bands)
			if n > 0 && by > ay && (2*n-1)*(y-ay)/(by-ay)%2 == 1 {
				continue
			}
			for x := max(ax, 0); x < min(bx, w); x++ {
				img.SetGray(x, y, color.Gray{0})
			}
		}
	}
	return img
}
