package cdm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestExtraRightInCell: a \right left in an alignment's cell (a prediction
// that dropped the \left\{ of a cases-like array in a matrix cell, issue
// 34's left-out pair) is TeX's "Extra \right." (tex.web §1192): pdflatex
// drops it with its delimiter and typesets the rest, so the pair is
// scored, not left out. Reference F1 from UniMERNet cdm/ run locally on
// these pairs; the boxes agree with the reference's within the usual
// pixel.
func TestExtraRightInCell(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`\begin{matrix} f = \left\{ \begin{array} {ll} a & b \\ c & d \end{array} \right. & x \end{matrix}`,
			`\begin{matrix} f = \begin{array} {ll} a & b \\ c & d \end{array} \right. & x \end{matrix}`, 0.933},
		{`\begin{matrix} a & b \\ c & d \end{matrix}`, `\begin{matrix} a & b \right) \\ c & d \end{matrix}`, 1},
		{`\begin{pmatrix} a & b \end{pmatrix}`, `\begin{pmatrix} a \right. & b \end{pmatrix}`, 0.667},
		{`\left( \begin{matrix} a & b \\ c & d \end{matrix} \right)`, `\left( \begin{matrix} a & b \right) \\ c & d \end{matrix}`, 0.909},
		{`\begin{matrix} x = \left\{ \begin{array} {l} 1 \\ 2 \end{array} \right. & y \end{matrix}`,
			`\begin{matrix} x = \begin{array} {l} 1 \\ 2 \end{array} \right. & y \end{matrix}`, 0.909},
	}, true)
}

// TestExtraAlignmentTab: an array row with more cells than its preamble
// has columns is TeX's "Extra alignment tab has been changed to \cr"
// (tex.web §792): the row ends at that & and the rest starts the next
// row, as pdflatex sets it; the pair is scored, not left out (the first
// pair was left out in a fresh printed sample of issue 34). Reference F1
// from UniMERNet cdm/ run locally on these pairs.
func TestExtraAlignmentTab(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`\left\{ \begin{array} { r c l } { f } & { \rightarrow } & { \pm \sigma ^ { 3 } f , } \\ { } & { } & { } \\ { C ^ { ( 2 n - 2 ) } } & { \rightarrow } & { - C ^ { ( 2 n - 2 ) } , \forall n , } \\ \end{array} \right.`,
			`\left\{ \begin{array} { r l } { f } & { \rightarrow } & { \pm \sigma ^ { 3 } f , } \\ { } & { } & { } \\ { C ^ { ( 2 n - 2 ) } } & { \rightarrow } & { - C ^ { ( 2 n - 2 ) } , \forall n , } \\ \end{array} \right.`, 0.964},
		{`\begin{array} { r l } a & b \\ c & d \end{array}`,
			`\begin{array} { r l } a & b & x \\ c & d \end{array}`, 0.889},
		{`\left\{ \begin{array} { l l } x & y \\ z & w \end{array} \right.`,
			`\left\{ \begin{array} { l } x & y \\ z & w \end{array} \right.`, 0.8},
		{`\begin{array} { c c } 1 & 2 \\ 3 & 4 \end{array}`,
			`\begin{array} { c c } 1 & 2 & 5 & 6 \\ 3 & 4 \end{array}`, 0.8},
	}, true)
}

// TestCircledArgument: \textcircled with a one-character argument inside a
// colour (the reference's raw fallback colours chunks such as
// \textcircled{<} of a prediction its tokenizer rejects) is set as TS1
// defines it, a character over the big circle, instead of being left out
// (issue 34: TexTeller's prediction for HME100K test_1741 repeats it a
// hundred times). The reference scores these pairs 0 (no chunk matches a
// token of the ground truth), as leakaudit now does; the chunks' boxes
// agree with the reference's within a pixel.
func TestCircledArgument(t *testing.T) {
	pairs := []Pair{
		{GT: `1 8 - 9 \textcircled { = }`, Pred: `18-9 \textcircled{<} \textcircled{=}}`},
		{GT: `a + \textcircled { 1 }`, Pred: `a+\textcircled{1} b}`},
	}
	if root := shareddata.Find(); root != "" {
		var tt []struct {
			GT    string `json:"gt"`
			Pred  string `json:"pred"`
			ImgID string `json:"img_id"`
		}
		data, err := os.ReadFile(filepath.Join(root, "predictions", "texteller", "hme100k_test.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &tt); err != nil {
			t.Fatal(err)
		}
		for _, p := range tt {
			if p.ImgID == "test_1741" {
				pairs = append(pairs, Pair{ID: p.ImgID, GT: p.GT, Pred: p.Pred})
			}
		}
		if len(pairs) != 3 {
			t.Errorf("test_1741 not found")
		}
	}
	for _, p := range pairs {
		r := ScorePair(p, UniMERNet)
		if r.Status != Scored || !r.Counted || r.F1 != 0 || r.P == 0 {
			t.Errorf("%s -> %.60s: %s (%s), reference: scored, F1 0", p.GT, p.Pred, r, r.Reason)
		}
	}
}

// TestRightInFraction: a \right inside an argument of \frac (a
// prediction that dropped the \left of a pair inside it) is not fatal:
// TeX's off_save (tex.web §1064) inserts \endgroup and } in the
// numerator, or } in the denominator, and reads \right again outside the
// fraction; after a numerator, \frac's own \endgroup then meets the
// display and TeX leaves math mode, \@@over#2 following in the paragraph
// (issue 34: a fresh printed pair was scored 0 against the reference's
// 0.923, the first row). Reference F1 from UniMERNet cdm/ run locally on
// these pairs.
func TestRightInFraction(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`\phi ( x ) = \frac { \displaystyle c \left( \sqrt { 1 + \frac { 4 x } { a } } + 1 \right) } { \displaystyle 2 x } \left( 1 + \frac { \displaystyle c \left( \sqrt { 1 + \frac { 4 x } { a } } + 1 \right) } { \displaystyle 2 a x } \right)`,
			`\phi ( x ) = \frac { \displaystyle c \left( \sqrt { 1 + \frac { 4 x } { a } } + 1 \right) } { \displaystyle Z x } \left( 1 + \frac { \displaystyle c \sqrt { 1 + \frac { 4 x } { a } } + 1 \right) } { \displaystyle 2 a x } \right)`, 0.923},
		{`\left( 1 + \frac { \left( a + b \right) } { 2 } \right)`,
			`\left( 1 + \frac { a + b \right) } { 2 } \right)`, 0.7},
		{`x = \left[ \frac { \left[ a \right] } { b } + c \right]`,
			`x = \left[ \frac { a \right] } { b } + c \right]`, 0.9},
		{`\left( \frac { 1 } { \left( x \right) } \right)`,
			`\left( \frac { 1 } { x \right) } \right)`, 0.833},
		{`y = \frac { \left( a \right) } { b }`,
			`y = \frac { a \right) } { b }`, 0.5},
		{`\left( a + { b \left( c \right) } \right)`,
			`\left( a + { b c \right) } \right)`, 0.857},
		{`\left( a + \sqrt { b + \left( c \right) } \right) ^ { 2 }`,
			`\left( a + \sqrt { b + c \right) } \right) ^ { 2 }`, 0.9},
		{`f = \left\{ 1 + \frac { x ^ { 2 } } { \left\{ y \right\} } \right\} d x`,
			`f = \left\{ 1 + \frac { x ^ { 2 } } { y \right\} } \right\} d x`, 0.846},
		{`\frac { \left( a + b \right) ^ { 2 } } { 2 } = c`,
			`\frac { a + b \right) ^ { 2 } } { 2 } = c`, 0.889},
		{`\left( { a + \frac { \left( b \right) } { c } } \right)`,
			`\left( { a + \frac { b \right) } { c } } \right)`, 0.625},
		{`\sqrt { \frac { \left( a + b \right) } { c } } + d`,
			`\sqrt { \frac { a + b \right) } { c } } + d`, 0.889},
		{`\left[ x + \frac { 1 } { 2 } \left( y - z \right) ^ { 2 } \right] = 0`,
			`\left[ x + \frac { 1 } { 2 } y - z \right) ^ { 2 } \right] = 0`, 0.857},
		{`\left| \frac { \partial f } { \partial \left( x \right) } \right| \leq 1`,
			`\left| \frac { \partial f } { \partial x \right) } \right| \leq 1`, 0.9},
		{`A = \frac { 1 } { 2 } \left( \frac { \left( a \right) } { b } + c \right)`,
			`A = \frac { 1 } { 2 } \left( \frac { a \right) } { b } + c \right)`, 0.923},
		{`\frac { 1 } { 2 } \left( \frac { a \left( b \right) } { c } \right) ^ { 2 }`,
			`\frac { 1 } { 2 } \left( \frac { a b \right) } { c } \right) ^ { 2 }`, 0.909},
		{`x ^ { \frac { \left( a \right) } { b } } + 1`,
			`x ^ { \frac { a \right) } { b } } + 1`, 0.462},
		{`\left( 1 - \frac { v ^ { 2 } } { c ^ { 2 } } \right) ^ { - 1 / 2 } = \gamma`,
			`1 - \frac { v ^ { 2 } } { c ^ { 2 } } \right) ^ { - 1 / 2 } = \gamma`, 0.929},
		{`f \left( x \right) = \frac { \left( x + 1 \right) ^ { 2 } } { \left( x - 1 \right) }`,
			`f \left( x \right) = \frac { \left( x + 1 \right) ^ { 2 } } { x - 1 \right) }`, 0.938},
	}, true)
}

// TestEmptyArrayPreamble: an array whose preamble the reference's
// tokenizer empties ({ { c } } becomes {}, one of issue 34's left-out
// printed pairs) is set as pdflatex sets it: \halign's template has no #
// ("Missing # inserted in alignment preamble"), and each cell's tokens
// are text, flush left, after \@arstrut. Reference F1 from UniMERNet cdm/
// run locally on these pairs.
func TestEmptyArrayPreamble(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`\begin{array} { c } { x } \\ { y } \\ \end{array}`,
			`\begin{array} { { c } } { x } \\ { y } \\ \end{array}`, 1},
		{`\begin{array} { c c } a & b \\ c & d \end{array}`,
			`\begin{array} { { c } c } a & b \\ c & d \end{array}`, 0.5},
		{`\left( \begin{array} { c } { a + b } \\ { c } \end{array} \right)`,
			`\left( \begin{array} { { c } } { a + b } \\ { c } \end{array} \right)`, 1},
		{`\begin{array} { c c } a & b \\ c & d \end{array}`,
			`\begin{array} { { c } { c } } a & b \\ c & d \end{array}`, 0.5},
		{`\left\{ \begin{array} { l } { x = 1 } \\ { y = 2 } \end{array} \right.`,
			`\left\{ \begin{array} { { l } } { x = 1 } \\ { y = 2 } \end{array} \right.`, 1},
	}, false)
}

// referencePair is a pair with the F1 the reference CDM gave it (UniMERNet
// cdm/ run locally).
type referencePair struct {
	gt, pred string
	f1       float64
}

// checkRecovered asserts that each pair is scored under the unimernet
// profile with the reference's F1 (the engine recovers from the
// prediction's LaTeX error as pdflatex does), and, when strict is set,
// that the strict profile reports the LaTeX error instead.
func checkRecovered(t *testing.T, pairs []referencePair, strict bool) {
	t.Helper()
	for _, c := range pairs {
		r := ScorePair(Pair{GT: c.gt, Pred: c.pred}, UniMERNet)
		if r.Status != Scored || r.F1 != c.f1 {
			t.Errorf("%s -> %s: %s (%s), reference F1 %.3f", c.gt, c.pred, r, r.Reason, c.f1)
		}
		if !strict {
			continue
		}
		if s := ScorePair(Pair{GT: c.gt, Pred: c.pred}, Strict); s.Status != PredFailed {
			t.Errorf("strict: %s: %s (%s), want a LaTeX error", c.pred, s, s.Reason)
		}
	}
}
