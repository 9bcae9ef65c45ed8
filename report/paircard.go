package report

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	xdraw "golang.org/x/image/draw"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/labelcheck"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/neardup"
)

// A CardSide is one item of a pair card: its image (nil when it has none)
// and its label.
type CardSide struct {
	Image    image.Image
	Label    string
	HasLabel bool
}

// Card sizes, in pixels.
const (
	cardRow     = 96  // height of the originals and of the normalized images
	cardFormula = 64  // largest height of a typeset label
	cardMaxW    = 480 // widest cell
	cardGap     = 16  // between the two columns
	cardRowGap  = 8
)

// PairCard draws a pair as a person judges it: in the left column the
// first item, in the right the second; the top row their images as given
// (uniform scaling only), the middle row the same images as the matcher
// normalized them (dark ink on light, cropped to the ink, fitted to the
// hash's canvas: imagehash.Normalize and imagehash.Fit), the bottom row
// their labels typeset by leakaudit's TeX engine (cdm.Picture). A side
// without an image or a label leaves its cell empty; a label the engine
// cannot set leaves a grey cell.
func PairCard(a, b CardSide, canvas imagehash.Canvas) *image.RGBA {
	type cell struct {
		img  image.Image
		grey bool // nothing could be drawn
	}
	rows := make([][2]cell, 3)
	heights := []int{cardRow, cardRow, cardFormula}
	for i, s := range []CardSide{a, b} {
		if s.Image != nil {
			rows[0][i].img = scaleTo(s.Image, cardRow, cardMaxW)
			if c, ok := imagehash.Normalize(imagehash.ToGray(s.Image)); ok {
				rows[1][i].img = scaleTo(imagehash.Fit(c, 64, canvas), cardRow, cardRow)
			} else {
				rows[1][i].grey = true
			}
		}
		if s.HasLabel {
			if pic := cdm.Picture(s.Label); pic != nil {
				rows[2][i].img = scaleTo(pic, cardFormula, cardMaxW)
			} else {
				rows[2][i].grey = true
			}
		}
	}
	var colW [2]int
	for _, r := range rows {
		for i, c := range r {
			if c.img != nil {
				colW[i] = max(colW[i], c.img.Bounds().Dx())
			}
		}
	}
	colW[0], colW[1] = max(colW[0], cardRow), max(colW[1], cardRow)
	w := colW[0] + cardGap + colW[1]
	h := 0
	for _, rh := range heights {
		h += rh + cardRowGap
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h-cardRowGap))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	y := 0
	for ri, r := range rows {
		x := 0
		for i, c := range r {
			switch {
			case c.img != nil:
				draw.Draw(out, c.img.Bounds().Add(image.Pt(x, y)), c.img, c.img.Bounds().Min, draw.Src)
			case c.grey:
				draw.Draw(out, image.Rect(x, y, x+colW[i], y+heights[ri]), image.NewUniform(color.Gray{230}), image.Point{}, draw.Src)
			}
			x += colW[i] + cardGap
		}
		y += heights[ri]
		if ri < len(rows)-1 {
			for xx := 0; xx < w; xx++ {
				out.Set(xx, y+cardRowGap/2, color.Gray{215})
			}
		}
		y += cardRowGap
	}
	for yy := 0; yy < out.Bounds().Dy(); yy++ {
		out.Set(colW[0]+cardGap/2, yy, color.RGBA{200, 0, 0, 255})
	}
	return out
}

// CardLegend says what a pair card's rows are.
const CardLegend = "Each card: top, the two images as given; middle, as the matcher normalized them (dark on light, cropped to the ink, fitted to its canvas); bottom, the two labels typeset by leakaudit's TeX engine (a grey cell: the label cannot be typeset)."

// scaleTo scales an image uniformly to the given height, or less when it
// would be wider than maxW.
func scaleTo(m image.Image, height, maxW int) image.Image {
	r := m.Bounds()
	if r.Dx() == 0 || r.Dy() == 0 {
		return nil
	}
	w := max(1, r.Dx()*height/r.Dy())
	if w > maxW {
		height = max(1, r.Dy()*maxW/r.Dx())
		w = maxW
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, height))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), m, r, draw.Src, nil)
	return dst
}

// CopyReason says why a near-duplicate pair is, or is not, a copy, and
// for a lone symbol's pair (neardup.Pair.LoneSymbol) why its verdict is
// weaker.
func CopyReason(p neardup.Pair) string {
	r := copyReason(p)
	if p.LoneSymbol {
		r += "; but the test image is a lone symbol, and " + imagehash.LoneSymbolNote + ": look at both images"
	}
	return r
}

func copyReason(p neardup.Pair) string {
	switch {
	case p.Identical:
		return "a copy: the same pixels once normalized"
	case p.Verified && p.SmallInk:
		return fmt.Sprintf("a copy at the test image's resolution: its ink is small against its pen (strokes merged), and the training image's ink, closed as that pen closes strokes and sampled at the test image's rows, lies within %.1f px of it (chamfer distance, 64×64 canvas); found by the small-ink keys, pHash %d bits apart", imagehash.VerifySmallInk, p.Distance)
	case p.Verified && p.Squeezed:
		return fmt.Sprintf("a copy whose pen merged its strokes (squeezed along one axis by a canvas of another aspect, or small against a thick pen) and is measured too thick: the test image's ink, drawn again with a thinner pen, lies within %.1f px of the training image's (chamfer distance of the outlines, 64×64 canvas); pHash %d bits apart", imagehash.VerifyInk, p.Distance)
	case p.Verified && p.ThickerPen:
		return fmt.Sprintf("a copy whose pen is measured too thin (strokes short against a thick pen): the test image's ink, drawn again with a thicker pen, lies within %.1f px of the training image's (chamfer distance of the outlines, 64×64 canvas); pHash %d bits apart", imagehash.VerifyInk, p.Distance)
	case p.Verified && p.Cut:
		return fmt.Sprintf("a copy whose ink was cut at an edge: the test image's normalized ink lies within %g px of the training image's ink as a 3%% cut at one side would leave it (chamfer distance of the outlines, 64×64 canvas); found by the training image's cut variant, pHash %d bits apart", imagehash.VerifyCutInk, p.Distance)
	case p.Verified && p.EdgeKey:
		return fmt.Sprintf("a copy whose ink was cut at an edge: the normalized ink of one lies within %.1f px of the other's (chamfer distance of the outlines, 64×64 canvas; the fine hash is not enough for such a pair); found by the edge keys, pHash %d bits apart", imagehash.VerifyInk, p.Distance)
	case !p.Verified && p.InkTooSmall:
		return fmt.Sprintf("not shown to be a copy: pHash within %d bits, but the test image's ink is too small to tell one formula from another (under %.0f pen widths high, or strokes merged by the pen), so only identical pixels verify a copy of it", p.Distance, imagehash.SmallPensMin)
	case p.Verified:
		return fmt.Sprintf("a copy: the normalized ink of one lies within %.1f px of the other's (chamfer distance of the outlines, 64×64 canvas), or within %.1f px with the fine 256-bit hash within %d bits (%d for a lone symbol) when the test image has at most %d pieces of ink; the fine hash differs by %d bits, pHash by %d", imagehash.VerifyInk, imagehash.VerifyInkFine, imagehash.VerifyDistance, imagehash.VerifyDistanceSymbol, imagehash.VerifyInkFineParts, p.FineDistance, p.Distance)
	}
	return fmt.Sprintf("not shown to be a copy: pHash within %d bits, but the normalized inks lie farther apart than a copy's (chamfer distance above %.1f px, or above %.1f px where the fine hash is within %d bits, %d for a lone symbol, and the test image has at most %d pieces of ink; it differs by %d bits): images alike, such as one formula written alike by two writers", p.Distance, imagehash.VerifyInk, imagehash.VerifyInkFine, imagehash.VerifyDistance, imagehash.VerifyDistanceSymbol, imagehash.VerifyInkFineParts, p.FineDistance)
}

// LabelReason says how a pair's labels compare.
func LabelReason(c *labelcheck.Result) string {
	if c == nil {
		return "labels: not compared (a side has none)"
	}
	return "labels: " + c.Reason()
}

// pairCaption is the caption of a near-duplicate pair's card.
func pairCaption(p neardup.Pair) string {
	return fmt.Sprintf("test %s/%s (left, %q) and training %s/%s (right, %q): %s; %s",
		p.TestSplit, p.TestID, p.TestLabel, p.TrainSplit, p.TrainID, p.TrainLabel, CopyReason(p), LabelReason(p.LabelCheck))
}

// nearDupCard draws a near-duplicate pair's card.
func nearDupCard(e neardup.ImageEvidence, canvas imagehash.Canvas) *image.RGBA {
	p := e.Pair
	has := p.LabelCheck != nil
	return PairCard(CardSide{Image: e.Test, Label: p.TestLabel, HasLabel: has || p.TestLabel != ""},
		CardSide{Image: e.Train, Label: p.TrainLabel, HasLabel: has || p.TrainLabel != ""}, canvas)
}
