package cdm

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"github.com/leakaudit/leakaudit/latex"
	"github.com/leakaudit/leakaudit/tex"
)

// Typeset is one formula as the reference lays it out: its coloured
// tokens, the page the reference picks for their number (tex.PageFor) and
// the formula's layout on that page. Every path from a formula to CDM's
// picture or boxes goes through it: scoring (Render), the report's
// pictures (Picture) and leakaudit render.
type Typeset struct {
	Tokens []string
	Page   tex.Page
	Layout *tex.Layout
}

// Lay runs formula through the reference's tokenizer and colouring
// (latex.TokenizeCDM) and lays the coloured result out (see Typeset). A
// tokenizer error comes back as "tokenizer: …" (wrapping latex's), a
// layout error as tex returns it.
func Lay(formula string) (Typeset, error) {
	res, err := latex.TokenizeCDM(formula)
	if err != nil {
		return Typeset{}, fmt.Errorf("tokenizer: %w", err)
	}
	return layTokens(res)
}

// layTokens lays out a tokenized formula: its rendered source on the page
// for its number of tokens. Layout is nil when err is not.
func layTokens(res latex.CDMResult) (Typeset, error) {
	page := tex.PageFor(len(res.Tokens))
	l, err := tex.TypesetOn(res.Rendered(), page)
	return Typeset{Tokens: res.Tokens, Page: page, Layout: l}, err
}

// Picture rasterizes the formula at dpi (0: the reference's 200) on its
// page and crops it 8 px around its ink, as the reference's renders are.
func (t Typeset) Picture(dpi float64) (*image.Gray, error) {
	return t.Layout.Render(tex.RenderOptions{DPI: dpi, Page: t.Page, Pad: 8})
}

// Boxes returns each token's box in the crop of the reference's raster
// (tex.ReferenceRaster) at dpi (0: the reference's 200), and the crop's
// size.
func (t Typeset) Boxes(dpi float64) (boxes []tex.PixelBox, w, h int) {
	rs := tex.ReferenceRaster
	if dpi > 0 {
		rs.DPI = dpi
	}
	return t.Layout.PixelBoxes(len(t.Tokens), t.Page, rs)
}

// Outline draws the one-pixel outline of the box with inclusive corners
// (x0, y0) and (x1, y1) on img in colour c; pixels outside img are left
// out.
func Outline(img draw.Image, x0, y0, x1, y1 int, c color.Color) {
	for x := x0; x <= x1; x++ {
		img.Set(x, y0, c)
		img.Set(x, y1, c)
	}
	for y := y0; y <= y1; y++ {
		img.Set(x0, y, c)
		img.Set(x1, y, c)
	}
}
