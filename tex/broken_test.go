package tex

import (
	"errors"
	"slices"
	"strings"
	"testing"
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
		{`\left( x`, nil, `missing \right. inserted`, 2},
		{`\begin{array}{cc} a & b \\ c & d`, nil, `\begin{array} ended by \end{displaymath}`, 4},
		{`a & b`, nil, "misplaced alignment tab character &", 2},
		{`x^2^3`, nil, "double superscript", 3},
		{`x_1_2`, nil, "double subscript", 3},
		{`α + 1`, nil, "Unicode character 'α' not set up for use with LaTeX", 2},
		{`a $ b`, nil, "display math should end with $$", 2},
		{`\frac{a}{b`, ErrFatal, "", 0},
		{`\frac{a}`, ErrFatal, "", 0},
		{`\mathcolor[RGB]{0,0,15}{x`, ErrFatal, "", 0},
		{`\hline x`, ErrUnsupported, "", 0},
		{`\end{array} x`, ErrUnsupported, "", 0},
		{`\begin{array}{c} a & b \end{array}`, ErrUnsupported, "", 0},
		{`\begin{foo} a \end{foo}`, ErrUnsupported, "", 0},
		{`\tag{1} a`, ErrUnsupported, "", 0},
		{`\left( a \middle| b \right)`, ErrUnsupported, "", 0},
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
