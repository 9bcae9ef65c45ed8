package tex

import (
	"math"
	"strconv"
)

// Page is one of the reference's landscape pages (geometry a<N>paper,
// scale=0.98) with where LaTeX puts the display on it. Lengths are in
// scaled points; Left and Top are relative to the DVI origin, one inch in
// from the page's top left corner (as pdfTeX places it).
type Page struct {
	Name          string
	Width, Height Scaled // paper size
	TextWidth     Scaled // \textwidth = \displaywidth
	Left          Scaled // left edge of the text block
	Top           Scaled // top of the text block
}

// The reference's pages, read off real LaTeX runs of its template
// (\textwidth, \paperwidth, and the DVI's movements to the text block).
var (
	PageA5 = Page{Name: "a5", Width: dimen("597.50787pt"), Height: dimen("421.10078pt"), TextWidth: dimen("585.55516pt"), Left: -4344620, Top: -4515462}
	PageA4 = Page{Name: "a4", Width: dimen("845.04684pt"), Height: dimen("597.50787pt"), TextWidth: dimen("828.14229pt"), Left: -4182358, Top: -4422954}
	PageA3 = Page{Name: "a3", Width: dimen("1195.01575pt"), Height: dimen("845.04684pt"), TextWidth: dimen("1171.11032pt"), Left: -3952953, Top: -4293144}
)

func dimen(s string) Scaled {
	d, _, ok := parseDimen(s, 0)
	if !ok {
		panic("tex: bad dimension " + s)
	}
	return d
}

// PageFor is the reference's page choice by token count (docs/cdm.md §6).
func PageFor(tokens int) Page {
	switch {
	case tokens > 1300:
		return PageA3
	case tokens > 600:
		return PageA4
	}
	return PageA5
}

// Constants of the reference's display placement (12 pt article).
var (
	oneInch          = Scaled(4736286) // 72.27pt
	topSkip          = Scaled(12 << 16)
	baselineSkip     = Scaled(950272) // 14.5pt
	lineSkip         = Scaled(1 << 16)
	aboveDisplaySkip = Scaled(12 << 16)
)

// Place returns the DVI position (h, v) of the formula's reference point
// when the reference typesets it alone in a displaymath on page pg
// (tex.web §1199–§1205): centred in the line, or flush left when wider
// (then re-packed to the line width, see Display); the baseline follows
// the empty first line by \baselineskip, or by \lineskip below a tall
// formula, after \abovedisplayshortskip (0pt) or, when the formula
// reaches into the indentation, \abovedisplayskip.
func (pg Page) Place(l *Layout) (h, v Scaled) {
	w := min(l.Width, pg.TextWidth)
	d := half(pg.TextWidth - w)
	h = pg.Left + d
	em := textFontCMR.Param(6)
	preDisplay := scaleDecimal(em, "1.5") + 2*em // \parindent 1.5em, + 2em
	first := pg.Top + topSkip
	v = first
	if d <= preDisplay {
		v += aboveDisplaySkip
	}
	if baselineSkip-l.Height >= 0 {
		v += baselineSkip
	} else {
		v += lineSkip + l.Height
	}
	return h, v
}

// InkBox is an ink rectangle in scaled points, y downwards.
type InkBox struct {
	X0, Y0, X1, Y1 Scaled
}

func (b *InkBox) union(o InkBox) {
	b.X0, b.Y0 = min(b.X0, o.X0), min(b.Y0, o.Y0)
	b.X1, b.Y1 = max(b.X1, o.X1), max(b.Y1, o.Y1)
}

// glyphInk is a glyph's ink: the AFM bounding box of the Type 1 glyph
// pdflatex embeds, or the TFM box for a font without an AFM.
func glyphInk(g *Glyph) (InkBox, bool) {
	f := g.font
	if f == nil {
		return InkBox{}, false
	}
	if g.Char < 0 || g.Char >= len(f.ink) || !f.ink[g.Char].ok {
		return InkBox{}, false
	}
	k := f.ink[g.Char]
	return InkBox{X0: g.X + k.llx, Y0: g.Y - k.ury, X1: g.X + k.urx, Y1: g.Y - k.lly}, true
}

// Inks returns each token's ink box (the union of its glyphs' ink and
// its rules) for tokens 0…n−1, and whether it has any ink; and the ink
// box of the whole formula, uncoloured ink included.
func (l *Layout) Inks(n int) (boxes []InkBox, has []bool, all InkBox, any bool) {
	boxes, has = make([]InkBox, n), make([]bool, n)
	add := func(tok int, b InkBox) {
		if b.X1 <= b.X0 && b.Y1 <= b.Y0 {
			return
		}
		if !any {
			all, any = b, true
		} else {
			all.union(b)
		}
		if tok < 0 || tok >= n {
			return
		}
		if !has[tok] {
			boxes[tok], has[tok] = b, true
		} else {
			boxes[tok].union(b)
		}
	}
	for i := range l.Glyphs {
		if b, ok := glyphInk(&l.Glyphs[i]); ok {
			add(l.Glyphs[i].Token, b)
		}
	}
	for _, r := range l.Rules {
		add(r.Token, InkBox{X0: r.X, Y0: r.Y - r.Height, X1: r.X + r.Width, Y1: r.Y})
	}
	return boxes, has, all, any
}

// Raster fixes the pixel convention of the reference's renders: Ghostscript
// at DPI dots per inch, anti-aliased, so that a pixel counts as ink when
// the ink overlaps it by more than Eps pixels.
type Raster struct {
	DPI float64
	// Eps shrinks an ink interval before it is mapped to pixels, in
	// pixels: at the left, top, right and bottom end. Fitted on the
	// reference's renders (the anti-aliasing threshold).
	Eps [4]float64
	// Snap moves each glyph's origin to the nearest device pixel before
	// its ink is mapped, as Ghostscript places glyphs: x counted from the
	// page's left edge, y from its bottom edge (PDF's coordinates, so the
	// page height's fraction of a pixel sets the phase). Rules are not
	// moved and map with RuleEps instead of Eps.
	Snap    bool
	RuleEps [4]float64
	// GlyphEdges applies glyphAdjust, the per-glyph corrections of the
	// thresholds (Snap rasters only).
	GlyphEdges bool
}

// glyphAdjust corrects, for one glyph of one font at one size, the left,
// right, top and bottom thresholds of Eps, in pixels: where Ghostscript's
// rendering of the glyph leaves an edge elsewhere than the AFM box and
// Eps say.
//
// With glyphs snapped to the device grid, each edge of a glyph falls at
// the same fraction of a pixel wherever the glyph is, so one threshold
// decides each edge for good; these are the glyphs whose edge the AFM box
// and Eps put on the wrong side of it, on every occurrence in the
// reference's renders of refcdm/reference_600 and of 3,000 fresh pairs
// (seeds 3958655416, 4191507871, 3580491749; TestPixelEdgesExact). Keyed by
// edgeKey; the comments give the occurrences fitted per edge. Each
// correction is half a pixel: the edge lies within 0.05 px of its
// threshold, and any value up to a pixel moves it to the other side.
var glyphAdjust = map[string][4]float64{
	"cmbx12:786432/49":  {-0.5, 0, 0, 0},    // n=16, 0, 0, 0
	"cmbx12:786432/50":  {-0.5, 0, 0, 0},    // n=5, 0, 0, 0
	"cmbx12:786432/107": {0, -0.5, 0, 0},    // n=0, 9, 0, 0
	"cmbx6:393216/97":   {0, 0, 0, 0.5},     // n=0, 0, 0, 4
	"cmex10:786432/73":  {-0.5, 0, 0, 0},    // n=19, 0, 0, 0
	"cmex10:786432/80":  {-0.5, 0, 0, 0},    // n=14, 0, 0, 0
	"cmex10:786432/81":  {-0.5, 0, 0, 0},    // n=4, 0, 0, 0
	"cmex10:786432/82":  {-0.5, 0, 0, 0},    // n=6, 0, 0, 0
	"cmex10:786432/86":  {-0.5, 0, 0, 0},    // n=6, 0, 0, 0
	"cmex10:786432/88":  {-0.5, 0, 0, 0},    // n=432, 0, 0, 0
	"cmex10:786432/89":  {-0.5, 0, 0, 0},    // n=77, 0, 0, 0
	"cmex10:786432/90":  {-0.5, 0, 0, 0},    // n=591, 0, 0, 0
	"cmex8:524288/98":   {0.5, 0, 0, 0},     // n=8, 0, 0, 0
	"cmmi12:786432/13":  {0, 0, 0, 0.5},     // n=0, 0, 0, 262
	"cmmi12:786432/24":  {0, 0, 0.5, 0},     // n=0, 0, 200, 0
	"cmmi12:786432/34":  {-0.5, 0, 0, 0},    // n=100, 0, 0, 0
	"cmmi12:786432/87":  {0, -0.5, 0, 0},    // n=0, 201, 0, 0
	"cmmi12:786432/97":  {0, 0.5, 0, 0},     // n=0, 1455, 0, 0
	"cmmi12:786432/125": {0, -0.5, 0, 0},    // n=0, 20, 0, 0
	"cmmi6:393216/75":   {0, -0.5, 0, 0},    // n=0, 5, 0, 0
	"cmmi8:524288/74":   {0, 0, 0.5, 0},     // n=0, 0, 62, 0
	"cmmi8:524288/77":   {0, -0.5, 0, 0},    // n=0, 148, 0, 0
	"cmmi8:524288/86":   {0, 0, 0.5, 0},     // n=0, 0, 30, 0
	"cmmi8:524288/88":   {0, 0, 0.5, 0},     // n=0, 0, 57, 0
	"cmr12:786432/20":   {0, 0, 0.5, 0},     // n=0, 0, 10, 0
	"cmr12:786432/91":   {-0.5, 0, 0, 0},    // n=466, 0, 0, 0
	"cmr12:786432/95":   {0, 0.5, 0, 0.5},   // n=0, 119, 0, 119
	"cmr6:393216/102":   {-0.5, 0, 0, 0},    // n=4, 0, 0, 0
	"cmr8:524288/8":     {0, 0, 0.5, 0},     // n=0, 0, 27, 0
	"cmr8:524288/9":     {0, 0, 0.5, 0},     // n=0, 0, 9, 0
	"cmr8:524288/72":    {0, 0, 0.5, 0},     // n=0, 0, 6, 0
	"cmr8:524288/75":    {0, 0, 0.5, 0},     // n=0, 0, 10, 0
	"cmr8:524288/76":    {0, 0, 0.5, 0},     // n=0, 0, 3, 0
	"cmr8:524288/84":    {0, 0.5, 0, 0},     // n=0, 24, 0, 0
	"cmr8:524288/88":    {0, 0, 0.5, 0},     // n=0, 0, 4, 0
	"cmr8:524288/94":    {0, 0, 0, 0.5},     // n=0, 0, 0, 41
	"cmsy10:786432/1":   {-0.5, 0, 0, 0},    // n=300, 0, 0, 0
	"cmsy10:786432/6":   {0, 0, 0.5, 0},     // n=0, 0, 107, 0
	"cmsy10:786432/36":  {-0.5, 0, 0, 0},    // n=6, 0, 0, 0
	"cmsy10:786432/47":  {-0.5, 0, 0, 0},    // n=12, 0, 0, 0
	"cmsy10:786432/66":  {0, -0.5, 0, 0},    // n=0, 11, 0, 0
	"cmsy10:786432/77":  {0, -0.5, 0, 0},    // n=0, 24, 0, 0
	"cmsy10:786432/81":  {0, 0, 0, 0.5},     // n=0, 0, 0, 14
	"cmsy10:786432/114": {0, 0, 0, 0.5},     // n=0, 0, 0, 85
	"cmsy8:524288/14":   {0, 0, 0.5, 0},     // n=0, 0, 225, 0
	"cmsy8:524288/15":   {0, 0, 0.5, 0},     // n=0, 0, 4, 0
	"cmsy8:524288/72":   {0, 0, 0, 0.5},     // n=0, 0, 0, 4
	"cmsy8:524288/77":   {0, 0, 0, 0.5},     // n=0, 0, 0, 8
	"msam10:786432/10":  {-0.5, 0, 0, 0},    // n=5, 0, 0, 0
	"msam10:786432/92":  {-0.5, -0.5, 0, 0}, // n=310, 310, 0, 0
}

// edgeKey names a character of a font at a size: "cmr12:786432/91".
func edgeKey(name string, size Scaled, c int) string {
	return name + ":" + strconv.Itoa(int(size)) + "/" + strconv.Itoa(c)
}

// ReferenceRaster is the reference CDM's convention: 200 dpi, glyphs
// snapped to the device pixel grid, with the thresholds fitted on its
// renders of the formulas of refcdm/reference_600
// (TestPixelBoxesAgainstReference, TestPixelEdgesExact).
var ReferenceRaster = Raster{DPI: 200, Eps: [4]float64{0.15, -0.25, 0.1, 0.45}, Snap: true, RuleEps: [4]float64{0, -0.35, 0, 0.35}, GlyphEdges: true}

// PixelBox is a token's box in the reference's crop coordinates
// [x1, y1, x2, y2]; Empty when the token left no pixel.
type PixelBox struct {
	X1, Y1, X2, Y2 int
	Empty          bool
}

// span maps an ink interval in page points to the inclusive range of
// pixels it touches.
func (r Raster) span(a, b Scaled, axis int) (int, int) {
	s := r.DPI / 72.27
	return r.spanPx(a.Pt()*s, b.Pt()*s, axis, r.Eps)
}

// spanPx maps an ink interval in pixels to the inclusive range of pixels
// it touches, each end shrunk by eps.
func (r Raster) spanPx(pa, pb float64, axis int, eps [4]float64) (int, int) {
	lo := int(math.Floor(pa + eps[axis]))
	hi := int(math.Ceil(pb-eps[axis+2])) - 1
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// pixelInk is an inclusive pixel rectangle on the page.
type pixelInk struct{ x0, y0, x1, y1 int }

func (b *pixelInk) union(o pixelInk) {
	b.x0, b.y0 = min(b.x0, o.x0), min(b.y0, o.y0)
	b.x1, b.y1 = max(b.x1, o.x1), max(b.y1, o.y1)
}

// snappedInks is Inks in page pixels for a Snap raster, with the layout's
// reference point at (ox, oy) on a page pageH pixels high: each glyph's
// ink placed at its snapped origin, each rule mapped as it lies.
func (l *Layout) snappedInks(n int, r Raster, ox, oy Scaled, pageH float64) (boxes []pixelInk, has []bool, all pixelInk, any bool) {
	boxes, has = make([]pixelInk, n), make([]bool, n)
	add := func(tok int, b pixelInk) {
		if !any {
			all, any = b, true
		} else {
			all.union(b)
		}
		if tok < 0 || tok >= n {
			return
		}
		if !has[tok] {
			boxes[tok], has[tok] = b, true
		} else {
			boxes[tok].union(b)
		}
	}
	s := r.DPI / 72.27
	for i := range l.Glyphs {
		g := &l.Glyphs[i]
		k, ok := glyphInk(g)
		if !ok || k.X1 <= k.X0 && k.Y1 <= k.Y0 {
			continue
		}
		gx, gy := (ox+g.X).Pt()*s, (oy+g.Y).Pt()*s
		sx := math.Floor(gx + 0.5)
		sy := pageH - math.Floor(pageH-gy+0.5)
		eps := r.Eps
		if r.GlyphEdges && g.font != nil && g.Char >= 0 && g.Char < len(g.font.ink) {
			a := g.font.ink[g.Char].edge
			eps[0] += a[0]
			eps[2] += a[1]
			eps[1] += a[2]
			eps[3] += a[3]
		}
		x0, x1 := r.spanPx(sx+(k.X0-g.X).Pt()*s, sx+(k.X1-g.X).Pt()*s, 0, eps)
		y0, y1 := r.spanPx(sy+(k.Y0-g.Y).Pt()*s, sy+(k.Y1-g.Y).Pt()*s, 1, eps)
		add(g.Token, pixelInk{x0, y0, x1, y1})
	}
	for _, rl := range l.Rules {
		if rl.Width <= 0 && rl.Height <= 0 {
			continue
		}
		x0, x1 := r.spanPx((ox+rl.X).Pt()*s, (ox+rl.X+rl.Width).Pt()*s, 0, r.RuleEps)
		y0, y1 := r.spanPx((oy+rl.Y-rl.Height).Pt()*s, (oy+rl.Y).Pt()*s, 1, r.RuleEps)
		add(rl.Token, pixelInk{x0, y0, x1, y1})
	}
	return boxes, has, all, any
}

// PixelBoxes places the layout on page pg as the reference does and
// returns each token's box in the reference's crop coordinates (ink
// extent ±1 px, relative to the crop made 8 px around all ink), and the
// crop's size. Ink beyond the page's right or bottom edge is clipped.
func (l *Layout) PixelBoxes(n int, pg Page, r Raster) (boxes []PixelBox, w, h int) {
	if r.Snap {
		return l.snappedPixelBoxes(n, pg, r)
	}
	inks, has, all, any := l.Inks(n)
	boxes = make([]PixelBox, n)
	if !any {
		for i := range boxes {
			boxes[i].Empty = true
		}
		return boxes, 26, 26
	}
	oh, ov := pg.Place(l)
	ox, oy := oneInch+oh, oneInch+ov
	pageW := int(math.Ceil(pg.Width.Pt() * r.DPI / 72.27))
	pageH := int(math.Ceil(pg.Height.Pt() * r.DPI / 72.27))
	pix := func(b InkBox) (x0, y0, x1, y1 int, ok bool) {
		x0, x1 = r.span(ox+b.X0, ox+b.X1, 0)
		y0, y1 = r.span(oy+b.Y0, oy+b.Y1, 1)
		x0, y0 = max(x0, 0), max(y0, 0)
		x1, y1 = min(x1, pageW-1), min(y1, pageH-1)
		return x0, y0, x1, y1, x0 <= x1 && y0 <= y1
	}
	ax0, ay0, ax1, ay1, ok := pix(all)
	if !ok {
		for i := range boxes {
			boxes[i].Empty = true
		}
		return boxes, 26, 26
	}
	cx, cy := ax0-8, ay0-8
	for i := range boxes {
		if !has[i] {
			boxes[i].Empty = true
			continue
		}
		x0, y0, x1, y1, ok := pix(inks[i])
		if !ok {
			boxes[i].Empty = true
			continue
		}
		boxes[i] = PixelBox{X1: x0 - 1 - cx, Y1: y0 - 1 - cy, X2: x1 + 1 - cx, Y2: y1 + 1 - cy}
	}
	return boxes, ax1 - ax0 + 16, ay1 - ay0 + 16
}

// snappedPixelBoxes is PixelBoxes for a Snap raster.
func (l *Layout) snappedPixelBoxes(n int, pg Page, r Raster) (boxes []PixelBox, w, h int) {
	boxes = make([]PixelBox, n)
	oh, ov := pg.Place(l)
	pageWf, pageHf := pg.Width.Pt()*r.DPI/72.27, pg.Height.Pt()*r.DPI/72.27
	pageW, pageH := int(math.Ceil(pageWf)), int(math.Ceil(pageHf))
	inks, has, all, any := l.snappedInks(n, r, oneInch+oh, oneInch+ov, pageHf)
	clip := func(b pixelInk) (pixelInk, bool) {
		b.x0, b.y0 = max(b.x0, 0), max(b.y0, 0)
		b.x1, b.y1 = min(b.x1, pageW-1), min(b.y1, pageH-1)
		return b, b.x0 <= b.x1 && b.y0 <= b.y1
	}
	a, ok := clip(all)
	if !any || !ok {
		for i := range boxes {
			boxes[i].Empty = true
		}
		return boxes, 26, 26
	}
	cx, cy := a.x0-8, a.y0-8
	for i := range boxes {
		b, ok := clip(inks[i])
		if !has[i] || !ok {
			boxes[i].Empty = true
			continue
		}
		boxes[i] = PixelBox{X1: b.x0 - 1 - cx, Y1: b.y0 - 1 - cy, X2: b.x1 + 1 - cx, Y2: b.y1 + 1 - cy}
	}
	return boxes, a.x1 - a.x0 + 16, a.y1 - a.y0 + 16
}
