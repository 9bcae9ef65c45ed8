package cdm

import (
	"image"
	"image/color"
	"image/draw"
)

// Picture draws a formula as Render sets it: rasterized on the
// reference's page and cropped 8 px around its ink, as the reference's
// renders are. Nil when the formula cannot be drawn.
func Picture(formula string) *image.Gray {
	t, err := Lay(formula)
	if err != nil || len(t.Tokens) == 0 {
		return nil
	}
	img, err := t.Picture(0)
	if err != nil {
		return nil
	}
	return img
}

// DrawMatch draws a scored pair as the reference's vis_match does: the
// ground truth's crop above the prediction's, each token's box in green
// when its pair was accepted and in red otherwise, over the formulas'
// pictures (Picture; either may be nil), drawn light.
func DrawMatch(r Result, gt, pred *image.Gray) *image.RGBA {
	const gap = 10
	w := max(r.GTSize[0], r.PredSize[0])
	h := r.GTSize[1] + gap + r.PredSize[1]
	img := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for _, pic := range []struct {
		g  *image.Gray
		dy int
	}{{gt, 0}, {pred, r.GTSize[1] + gap}} {
		if pic.g == nil {
			continue
		}
		b := pic.g.Bounds()
		for y := 0; y < b.Dy() && pic.dy+y < h; y++ {
			for x := 0; x < b.Dx() && x < w; x++ {
				v := pic.g.GrayAt(b.Min.X+x, b.Min.Y+y).Y
				img.Set(x, pic.dy+y, color.Gray{Y: 255 - (255-v)/2})
			}
		}
	}
	for x := 0; x < w; x++ {
		for y := r.GTSize[1]; y < r.GTSize[1]+gap; y++ {
			img.Set(x, y, color.Gray{220})
		}
	}
	gOK := make([]bool, len(r.GTBoxes))
	pOK := make([]bool, len(r.PredBoxes))
	for _, m := range r.Matches {
		if m.Accepted {
			gOK[m.G], pOK[m.P] = true, true
		}
	}
	green, red := color.RGBA{0, 160, 0, 255}, color.RGBA{220, 0, 0, 255}
	rect := func(b [4]float64, dy int, c color.Color) {
		Outline(img, int(b[0]), int(b[1])+dy, int(b[2]), int(b[3])+dy, c)
	}
	for i, b := range r.GTBoxes {
		c := color.Color(red)
		if gOK[i] {
			c = green
		}
		rect(b, 0, c)
	}
	for i, b := range r.PredBoxes {
		c := color.Color(red)
		if pOK[i] {
			c = green
		}
		rect(b, r.GTSize[1]+gap, c)
	}
	return img
}
