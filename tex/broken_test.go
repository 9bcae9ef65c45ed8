package tex

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/latex"
)

// TestBrokenLaTeX pins the table of the package comment: for each class of
// broken LaTeX, whether Typeset recovers as pdflatex does (and reports the
// error), refuses it as pdflatex does (ErrFatal), or does not model it
// (ErrUnsupported).
func TestBrokenLaTeX(t *testing.T) {
	for _, c := range []struct {
		in        string
		err       error  // nil: laid out
		recovered string // an error Recovered must list
		glyphs    int
	}{
		{`\foo x`, nil, `undefined control sequence \foo`, 1},
		{`\cancel{x}`, nil, `undefined control sequence \cancel`, 1},
		{`x^{2 + y`, nil, "missing } inserted", 4},
		{`a}+b`, nil, "extra }, or forgotten $", 3},
		{`x^{2}} + y`, nil, "extra }, or forgotten $", 4},
		{`\left( a } b \right)`, nil, `extra }, or forgotten \right`, 4},
		{`x \right) y`, nil, `extra \right`, 2},
		{`\begin{matrix} a \right) & b \end{matrix}`, nil, `extra \right`, 2},
		{`\begin{array}{cc} a & b & c \\ d & e \end{array}`, nil, `extra alignment tab has been changed to \cr`, 5},
		{`\left( \begin{matrix} a & b \right) \\ c & d \end{matrix}`, nil, `extra \right`, 5},
		{`\left( x`, nil, `missing \right. inserted`, 2},
		{`\begin{array}{cc} a & b \\ c & d`, nil, `\begin{array} ended by \end{displaymath}`, 4},
		{`a & b`, nil, "misplaced alignment tab character &", 2},
		{`x^2^3`, nil, "double superscript", 3},
		{`x_1_2`, nil, "double subscript", 3},
		{`α + 1`, nil, "Unicode character 'α' not set up for use with LaTeX", 2},
		{`a $ b`, nil, "display math should end with $$", 2},
		{`a \mathcolor[RGB]{0,0,15}{\hspace} b`, nil, "Missing number, treated as zero", 2},
		{`a \mathcolor[RGB]{0,0,15}{\raise} b`, nil, "A <box> was supposed to be here", 2},
		{`a \mathcolor[RGB]{0,0,15}{\mkern} b`, nil, "Illegal unit of measure (mu inserted)", 2},
		{`a \mathcolor[RGB]{0,0,15}{\vspace} b`, nil, "Illegal unit of measure (pt inserted)", 2},
		{`a \mathcolor[RGB]{0,0,15}{\put} b`, nil, `Use of \put doesn't match its definition`, 2},
		// a colour's script that is another colour (\left[ ^ a): mathcolor.ltx
		// hijacks its own end-group token; = and \char"0 are set
		{`\mathcolor[RGB]{0,0,15}{\left[} ^ \mathcolor[RGB]{0,0,30}{a} \mathcolor[RGB]{0,0,45}{\right]}`, nil, "missing } inserted", 5},
		{`\mathcolor[RGB]{0,0,15}{\label} x`, ErrFatal, "", 0},
		{`\mathcolor[RGB]{0,0,15}{\special} x`, ErrFatal, "", 0},
		{`\frac{a}{b`, ErrFatal, "", 0},
		{`\frac{a}`, ErrFatal, "", 0},
		{`\mathcolor[RGB]{0,0,15}{x`, ErrFatal, "", 0},
		{`\hline x`, ErrUnsupported, "", 0},
		{`\begin{array}{c} a \\ { \hline { b } } \end{array}`, ErrUnsupported, "", 0},
		// \buildrel's argument meets the } first: TeX leaves math mode, the
		// display holds what came before (the paragraph after it needs a
		// page, TestParagraphAfterDisplay)
		{`\frac{a \mathcolor[RGB]{0,0,15}{\buildrel} b}{c}`, nil, `Argument of \buildrel has an extra }`, 1},
		{`\mathcolor[RGB]{0,0,15}{\buildrel} { a } } { = }`, ErrUnsupported, "", 0},
		{`a \mathcolor[RGB]{0,0,15}{\buildrel} b`, ErrFatal, "", 0},
		// \verb alone in a colour body: 0 is an escape character and the
		// rest of the line is set in cmtt12 (verb.go): \char13, a space,
		// a, a thin space, \}, and \5 dropped
		{`\mathcolor[RGB]{0,0,15}{\verb} a0,0}05`, nil, `\verb ended by end of line`, 3},
		{`{ \mathcolor[RGB]{0,0,15}{\verb} x`, nil, "missing } inserted", 2},
		{`\left( \mathcolor[RGB]{0,0,15}{\verb} x \right)`, ErrUnsupported, "", 0},
		{`\mathcolor[RGB]{0,0,15}{\verb} 0.5`, ErrUnsupported, "", 0},
		{"\\mathcolor[RGB]{0,0,15}{\\verb} x\n y", ErrUnsupported, "", 0},
		{`\verb+x+`, ErrUnsupported, "", 0},
		{`\end{array} x`, ErrUnsupported, "", 0},
		{`\begin{array}{c} a & b \end{array}`, nil, `extra alignment tab has been changed to \cr`, 2},
		{`\begin{foo} a \end{foo}`, ErrUnsupported, "", 0},
		// tabular cells are text: each \mathcolor is an error and goes on;
		// \left before a \mathcolor takes a null delimiter
		{`\begin{tabular}{c} { \mathcolor[RGB]{0,0,15}{a} } \end{tabular}`, nil, `\mathcolor allowed only in math mode`, 1},
		{`\left \mathcolor[RGB]{0,0,15}{(} x \right.`, nil, "missing delimiter (. inserted)", 2},
		{`\begin{tabular}{c} \frac{a}{b} \end{tabular}`, ErrUnsupported, "", 0},
		{`\begin{tabular}{c} a & b \end{tabular}`, ErrUnsupported, "", 0},
		{`\begin{tabular}{c} \multicolumn{1}{c}{a} \end{tabular}`, ErrUnsupported, "", 0},
		{`\tag{1} a`, ErrUnsupported, "", 0},
		{`\left( a \middle| b \right)`, ErrUnsupported, "", 0},
		// a \right in \frac's denominator: off_save's } ends the fraction
		// and \right closes the \left outside it; the } left over and
		// the last \right are errors TeX goes on from
		{`\left( \frac{1}{x \right) } \right)`, nil, "missing } inserted", 4},
		// in the numerator, \frac's \endgroup then meets the display
		// and TeX leaves math mode: the paragraph needs a page
		{`y = \frac{a \right) }{b}`, ErrUnsupported, "", 0},
		// \dfrac and \tfrac ({\displaystyle{\begingroup#1\endgroup\@@over\relax#2}})
		// the same, with one } more inserted
		{`\left( \dfrac{a \right) }{b} \right)`, ErrUnsupported, "", 0},
		{`\left( \dfrac{1}{x \right) } \right)`, nil, "missing } inserted", 4},
		{`\left( \tfrac{1}{x \right) } \right) + y`, nil, "missing } inserted", 6},
		// a script cut at the end of the formula: \end{displaymath} is
		// its field ("Missing { inserted") and the display's $ closes it
		{`\left( g _ { 1 } , g _`, nil, "missing { inserted", 5},
		{`{ a ^`, nil, "missing { inserted", 1},
		// an empty array preamble: one text column
		{`\begin{array}{} x \\ y \end{array}`, nil, "missing # inserted in alignment preamble", 2},
		{`\begin{array}{} x^2 \end{array}`, ErrUnsupported, "", 0},
	} {
		l, err := Typeset(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%q: error %v, want %v", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if !slices.ContainsFunc(l.Recovered, func(r string) bool { return strings.Contains(r, c.recovered) }) {
			t.Errorf("%q: recovered %q, want %q", c.in, l.Recovered, c.recovered)
		}
		if len(l.Glyphs) != c.glyphs {
			t.Errorf("%q: %d glyphs, want %d", c.in, len(l.Glyphs), c.glyphs)
		}
	}
}

// TestHlineInCell: \hline in a cell (where the colouring moves it) ends
// the alignment; the rest of the array is read in its \vcenter, here a
// paragraph of the page's width holding b, then in the formula around it
// (checked against the DVI in the layout golden).
func TestHlineInCell(t *testing.T) {
	in := `\left( \begin{array}{cc} a & b \\ { \hline { \mathcolor[RGB]{0,0,15}{c} } } & \mathcolor[RGB]{0,0,30}{d} \end{array} \right)`
	if _, err := Typeset(in); !errors.Is(err, ErrUnsupported) {
		t.Errorf("without a page: %v, want ErrUnsupported", err)
	}
	l, err := TypesetOn(in, PageA5)
	if err != nil {
		t.Fatal(err)
	}
	// ( a b height c d ): a, b, c, d and the six letters, two delimiters
	if len(l.Glyphs) != 12 {
		t.Errorf("%d glyphs, want 12", len(l.Glyphs))
	}
	for _, want := range []string{`Misplaced \noalign`, `missing \cr inserted`, `misplaced alignment tab character &`, `Misplaced \crcr`} {
		if !slices.Contains(l.Recovered, want) {
			t.Errorf("recovered %q, want %q", l.Recovered, want)
		}
	}
	if l.Width != PageA5.TextWidth {
		t.Errorf("display %d wide, want the line (%d): the paragraph is \\hsize wide", l.Width, PageA5.TextWidth)
	}
	for _, c := range []string{
		`\begin{array}{c} a \\ { \hline { b } } \\ { \hline { c } } \end{array}`, // \\ ends the display: not modelled
		`\begin{array}{c} a \\ { \hline { \frac{1}{2} } } \end{array}`,
		`\begin{array}{c} a \\ { \hline { b } }`,
		`\begin{array}{c} a \\ { x^{ \hline } } \end{array}`,
	} {
		if _, err := TypesetOn(c, PageA5); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: %v, want ErrUnsupported", c, err)
		}
	}
}

// TestParagraphAfterDisplay: after a display that TeX ended early, the
// rest of the formula is set in a paragraph on the page's first line
// below it, indented by \parindent (checked against the DVI in the
// layout golden).
func TestParagraphAfterDisplay(t *testing.T) {
	in := `{ \mathcolor[RGB]{0,0,15}{\buildrel} \mathcolor[RGB]{0,0,30}{a} } \mathcolor[RGB]{0,0,45}{\alpha}`
	if _, err := Typeset(in); !errors.Is(err, ErrUnsupported) {
		t.Errorf("without a page: %v, want ErrUnsupported", err)
	}
	l, err := TypesetOn(in, PageA5)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Glyphs) != 1 || l.Width != 0 {
		t.Fatalf("%d glyphs, display width %d; want the α alone after an empty display", len(l.Glyphs), l.Width)
	}
	g := l.Glyphs[0]
	wantX := scaleDecimal(textFontCMR.Param(6), "1.5") - half(PageA5.TextWidth)
	if g.X != wantX || g.Y != baselineSkip+belowDisplayShortSkip || g.Token != 2 {
		t.Errorf("α at (%d, %d) token %d, want (%d, %d) token 2", g.X, g.Y, g.Token, wantX, baselineSkip+belowDisplayShortSkip)
	}
}

// TestPageClipping: a formula wider than the reference's A5 page is packed
// to the line and runs off the right edge; the tokens beyond the edge get
// no box and the render stops at the page.
func TestPageClipping(t *testing.T) {
	res, err := latex.TokenizeCDM(strings.Repeat("a + ", 120) + "b")
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Tokens)
	pg := PageFor(n)
	if pg.Name != "a5" {
		t.Fatalf("%d tokens on %s, want a5", n, pg.Name)
	}
	l, err := TypesetOn(res.Rendered(), pg)
	if err != nil {
		t.Fatal(err)
	}
	boxes, w, _ := l.PixelBoxes(n, pg, ReferenceRaster)
	visible := 0
	for _, b := range boxes {
		if !b.Empty {
			visible++
		}
	}
	pageW := int(pg.Width.Pt() * 200 / 72.27)
	if visible == 0 || visible >= n || w > pageW+16 {
		t.Errorf("%d of %d tokens visible, crop %d px wide (page %d px)", visible, n, w, pageW)
	}
	if boxes[0].Empty || !boxes[n-1].Empty {
		t.Errorf("the first token should be on the page and the last off it")
	}
	img, err := l.Render(RenderOptions{Page: pg, Pad: 8})
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect.Dx() > pageW+16 {
		t.Errorf("render %d px wide, page %d px", img.Rect.Dx(), pageW)
	}
	t.Logf("%d of %d tokens on the A5 page; crop %d px, render %d px", visible, n, w, img.Rect.Dx())
}

// TestColoredVerb: \verb alone in a colour body sets the rest of the line
// in cmtt12, in no token's colour, with 0 an escape character (checked
// against the DVI in the layout golden).
func TestColoredVerb(t *testing.T) {
	l, err := Typeset(`x \mathcolor[RGB]{0,0,30}{\verb} a0 b0,c0{0}05 <`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Improper alphabetic constant", "Missing number, treated as zero", "Improper alphabetic constant",
		`undefined control sequence \5`, `\verb ended by end of line`}
	if !slices.Equal(l.Recovered, want) {
		t.Errorf("recovered %q, want %q", l.Recovered, want)
	}
	// x; \char13 a b c { } < (the space, "0 " and 0, are glue and a kern)
	var got []string
	for _, g := range l.Glyphs {
		got = append(got, g.Font+":"+string(rune(g.Char)))
		if g.Font != "cmmi12" && g.Token != -1 {
			t.Errorf("%s %d: token %d, want none", g.Font, g.Char, g.Token)
		}
	}
	wantG := []string{"cmmi12:x", "cmtt12:\r", "cmtt12:a", "cmtt12:b", "cmtt12:c", "cmsy10:f", "cmsy10:g", "cmtt12:<"}
	if !slices.Equal(got, wantG) {
		t.Fatalf("glyphs %q, want %q", got, wantG)
	}
	tt := normalFonts[famTT][textSize]
	w := tt.Param(2) // a character's width, and the interword glue
	thin := scaleDecimal(tt.Param(6), ".1667")
	a := l.Glyphs[2].X
	for i, dx := range []Scaled{2 * w, w + thin, w} { // a\ b, b\,c, c\{
		if d := l.Glyphs[3+i].X - l.Glyphs[2+i].X; d != dx {
			t.Errorf("glyph %d at +%d from the one before, want %d", 3+i, d, dx)
		}
	}
	if l.Glyphs[1].X+w != a-w {
		t.Errorf("a at %d, want \\char13 and a space before it", a)
	}
}
