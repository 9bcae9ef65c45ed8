package imege

import (
	"fmt"
	"math"

	"github.com/leakaudit/leakaudit/tex"
)

// DPI is the resolution IMEGE's released script renders formulas at.
const DPI = 600

// The page of l2p's document (a 10 pt article on letter paper, as the
// DVI of the inline golden shows; docs/metrics.md §8.5): where the first
// line's reference point falls, from the DVI origin one inch in from the
// top left corner, for a centred line of the text width.
var (
	l2pLeft      = 62 * tex.Unity  // \oddsidemargin
	l2pTextWidth = 345 * tex.Unity // \textwidth
	l2pTop       = 53 * tex.Unity  // \topmargin + \headheight + \headsep
	l2pTopSkip   = 10 * tex.Unity  // \topskip
)

const (
	oneInch   = 4736286.72 // sp: dvips's offset of the DVI origin
	bpPerSp   = 72 / 72.27 / 65536
	pageTopBp = 792.0 // dvips -E measures from letter paper's bottom edge
)

// Render sets a math-mode formula as IMEGE's released script does with
// l2p: leakaudit's TeX engine sets it as in-line math (text style) in a
// 10 pt article (tex.TypesetInline), and the image is what l2p's
// `dvips -E` and `convert -density dpi` make of its page: the
// characters' TFM boxes (slanted) and rules, widened by 1 bp on each side
// and rounded to whole big points, as dvips bounds an EPS, rasterized at
// dpi with the formula where the page puts it. pad white pixels are
// added around (l2p's -B, which the script does not use: 0).
func Render(formula string, dpi float64, pad int) (*Image, error) {
	l, err := tex.TypesetInline(formula)
	if err != nil {
		return nil, err
	}
	fr, err := l2pFrame(l, dpi)
	if err != nil {
		return nil, err
	}
	if int64(fr.W+2*pad)*int64(fr.H+2*pad) > int64(DefaultLimits.MaxPixels) {
		return nil, fmt.Errorf("%w: %d×%d rendered", ErrTooLarge, fr.W+2*pad, fr.H+2*pad)
	}
	fr.W, fr.H, fr.X, fr.Y = fr.W+2*pad, fr.H+2*pad, fr.X+float64(pad), fr.Y+float64(pad)
	g, err := snapRules(dvipsGrid(l), fr, dpi).Render(tex.RenderOptions{DPI: dpi, Frame: fr})
	if err != nil {
		return nil, err
	}
	return FromImage(g), nil
}

// l2pFrame is the image l2p makes of a layout at dpi: its size and where
// the formula's reference point falls in it.
func l2pFrame(l *tex.Layout, dpi float64) (tex.Frame, error) {
	x0, y0, x1, y1, ok := l.TFMBox()
	if !ok {
		return tex.Frame{}, fmt.Errorf("tex: the formula has no ink")
	}
	// the reference point on the page, in sp from the page's top left
	href, vref := l2pOrigin(l)
	h, v := oneInch+float64(href), oneInch+float64(vref)
	// dvips -E: the marks' box in PostScript points (y up from the
	// bottom edge), 1 bp wider on each side, rounded
	round := func(x float64) float64 { return math.Floor(x + 0.5) }
	llx := round((h+float64(x0))*bpPerSp - 1)
	urx := round((h+float64(x1))*bpPerSp + 1)
	ury := round(pageTopBp - (v+float64(y0))*bpPerSp + 1)
	lly := round(pageTopBp - (v+float64(y1))*bpPerSp - 1)
	// convert -density: the box at dpi, rounded, its bottom left corner
	// at the image's
	w, ht := int(round((urx-llx)*dpi/72)), int(round((ury-lly)*dpi/72))
	if w <= 0 || ht <= 0 {
		return tex.Frame{}, fmt.Errorf("tex: the formula has no ink")
	}
	if int64(w)*int64(ht) > int64(DefaultLimits.MaxPixels) {
		return tex.Frame{}, fmt.Errorf("%w: %d×%d rendered", ErrTooLarge, w, ht)
	}
	top := lly + float64(ht)*72/dpi // the image's top edge, bp
	return tex.Frame{
		W: w, H: ht,
		X: (h*bpPerSp - llx) * dpi / 72,
		Y: (top - (pageTopBp - v*bpPerSp)) * dpi / 72,
	}, nil
}

// l2pOrigin is the formula's reference point on l2p's page, from the DVI
// origin: the line centred in the text width (overfull lines start at
// the margin), the first baseline \topskip below the text's top or the
// formula's height, whichever is more.
func l2pOrigin(l *tex.Layout) (h, v tex.Scaled) {
	return l2pLeft + max(0, (l2pTextWidth-l.Width)/2), l2pTop + max(l2pTopSkip, l.Height)
}

// dvips sets characters on its own pixel grid (600 dpi, Debian's
// config.ps), and the PostScript places them there whatever resolution
// the image is then made at.
const (
	dvipsDPI      = 600
	dvipsMaxDrift = 6 // pixels: dvips's default at 600 dpi
)

// dvipsGrid returns the layout with each glyph and rule moved to where
// dvips puts it on its pixel grid, each rule's size rounded up to pixels
// (tex.Layout.DriverGrid).
func dvipsGrid(l *tex.Layout) *tex.Layout {
	href, vref := l2pOrigin(l)
	xs, ys, rules, ok := l.DriverGrid(href, vref, dvipsDPI, dvipsMaxDrift)
	if !ok {
		return l
	}
	const pxPerSp = dvipsDPI / 72.27 / 65536
	toSp := func(px int) tex.Scaled { return tex.Scaled(math.Round(float64(px) / pxPerSp)) }
	out := *l
	out.Glyphs = make([]tex.Glyph, len(l.Glyphs))
	copy(out.Glyphs, l.Glyphs)
	for i := range out.Glyphs {
		out.Glyphs[i].X, out.Glyphs[i].Y = toSp(xs[i])-href, toSp(ys[i])-vref
	}
	out.Rules = make([]tex.Rule, len(l.Rules))
	for i, r := range l.Rules {
		b := rules[i]
		out.Rules[i] = tex.Rule{X: toSp(b.Min.X) - href, Y: toSp(b.Max.Y) - vref, Width: toSp(b.Dx()), Height: toSp(b.Dy()), Token: r.Token}
	}
	return &out
}

// snapRules widens each rule to the whole pixels of the image it touches,
// as Ghostscript fills a rectangle (any pixel it touches is painted).
func snapRules(l *tex.Layout, fr tex.Frame, dpi float64) *tex.Layout {
	if len(l.Rules) == 0 {
		return l
	}
	s := dpi / 72.27 / 65536 // pixels per sp
	toSp := func(px float64) tex.Scaled { return tex.Scaled(math.Round(px / s)) }
	out := *l
	out.Rules = make([]tex.Rule, len(l.Rules))
	for i, r := range l.Rules {
		x0 := math.Floor(fr.X + float64(r.X)*s + 1e-6)
		x1 := math.Ceil(fr.X + float64(r.X+r.Width)*s - 1e-6)
		y0 := math.Floor(fr.Y + float64(r.Y-r.Height)*s + 1e-6)
		y1 := math.Ceil(fr.Y + float64(r.Y)*s - 1e-6)
		out.Rules[i] = tex.Rule{X: toSp(x0 - fr.X), Y: toSp(y1 - fr.Y), Width: toSp(x1 - x0), Height: toSp(y1 - y0), Token: r.Token}
	}
	return &out
}
